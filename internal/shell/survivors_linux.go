package shell

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// survivors lists the live processes that belong to a command: those in
// its process group, and those carrying its marker in their environment,
// which finds the ones that left the group (setsid, a daemon's double
// fork) as long as they kept the environment they inherited. With prefix,
// marker matches every run whose marker starts with it (all the runs of one
// daemon). Zombies are left out: they are dead, and where nothing reaps
// orphans (a container whose init does not) they would look alive forever.
func survivors(pgid int, marker string, prefix bool) []int {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var entry []byte
	if marker != "" {
		entry = []byte("\x00" + markerVar + "=" + marker)
		if !prefix {
			entry = append(entry, 0)
		}
	}
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		st, ok := procStat(pid)
		if !ok || st.dead() || st.flags&pfKthread != 0 {
			continue
		}
		if pgid > 0 && st.pgrp == pgid {
			pids = append(pids, pid)
			continue
		}
		if entry != nil && hasEnvEntry(pid, entry) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Flags of /proc/<pid>/stat. A kernel thread has no environment and is
// never one of ours; an exiting process has already given up its memory
// (its environment reads empty) and is as good as dead.
const (
	pfExiting = 0x00000004
	pfKthread = 0x00200000
)

type procInfo struct {
	state byte
	pgrp  int
	flags uint64
}

// dead reports a process that is gone in all but name: a zombie, or one
// in the middle of exiting.
func (p procInfo) dead() bool {
	return p.state == 'Z' || p.state == 'X' || p.flags&pfExiting != 0
}

// procStat reads a process's state, process group and flags from
// /proc/<pid>/stat. The command name (field 2) may hold spaces and
// parentheses, so parsing starts after its last ')'.
func procStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procInfo{}, false
	}
	// state ppid pgrp session tty_nr tpgid flags ...
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 7 || len(fields[0]) != 1 {
		return procInfo{}, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return procInfo{}, false
	}
	flags, _ := strconv.ParseUint(string(fields[6]), 10, 64)
	return procInfo{state: fields[0][0], pgrp: pgrp, flags: flags}, true
}

// hasEnvEntry reports whether the process's initial environment holds
// entry, which starts with a NUL so that it only matches a whole variable.
// A process in the middle of execve shows an empty environment for a
// moment (its new memory is not set up yet): that is exactly the moment a
// daemon started with setsid is caught in, so an empty read is retried.
func hasEnvEntry(pid int, entry []byte) bool {
	path := "/proc/" + strconv.Itoa(pid) + "/environ"
	for try := 0; ; try++ {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		if len(b) > 0 {
			env := make([]byte, 0, len(b)+2)
			env = append(env, 0)
			env = append(env, b...)
			env = append(env, 0)
			return bytes.Contains(env, entry)
		}
		if try == envRetries {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// envRetries bounds the re-reads of an empty environment.
const envRetries = 20
