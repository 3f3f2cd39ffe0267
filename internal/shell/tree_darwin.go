package shell

import (
	"bytes"
	"encoding/binary"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// On macOS a command runs in its own process group, and its processes are
// found by ancestry while their parents live: the group, and every
// descendant of the shell in the kernel's process list, whatever group or
// session they moved to. macOS has no child subreaper, so a process whose
// parent died is handed to launchd and can then only be found by the
// marker in its environment (or its process group, if it kept it). When a
// daemon dies without cleaning up, the next one stops the process groups
// it recorded, their leaders' descendants, and everything carrying its
// marker.

type tree struct{}

func (tree) release() {}

func prepareTree() {}

// setParentDeathSignal does nothing: macOS has no such signal.
func setParentDeathSignal(*syscall.SysProcAttr) {}

func startInTree(cmd *exec.Cmd, _ Spec) (*exec.Cmd, tree, error) { return cmd, tree{}, start(cmd) }

// adoptedAny is false: nothing is ever handed to the daemon here.
func adoptedAny() bool { return false }

const recordGroups = true

func isolationName() string {
	return "process groups and the shell's descendants (macOS has no child subreaper: an orphan that leaves its process group and clears its environment cannot be found)"
}

type procEntry struct {
	pid, ppid, pgid int
	zombie          bool
	start           uint64
}

// listProcs reads the kernel's process list (kern.proc.all).
func listProcs() []procEntry {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]procEntry, 0, len(kps))
	for _, kp := range kps {
		out = append(out, procEntry{
			pid:    int(kp.Proc.P_pid),
			ppid:   int(kp.Eproc.Ppid),
			pgid:   int(kp.Eproc.Pgid),
			zombie: kp.Proc.P_stat == 5, // SZOMB
			start:  uint64(kp.Proc.P_starttime.Sec)*1e6 + uint64(kp.Proc.P_starttime.Usec),
		})
	}
	return out
}

// members lists the live processes of the command: its process group and
// the shell's descendants, and with Detaches the processes carrying its
// marker.
func (p *Process) members() []int {
	procs := listProcs()
	kids := map[int][]int{}
	for _, e := range procs {
		kids[e.ppid] = append(kids[e.ppid], e.pid)
	}
	byPid := map[int]procEntry{}
	for _, e := range procs {
		byPid[e.pid] = e
	}
	set := map[int]bool{}
	var add func(int)
	add = func(pid int) {
		if set[pid] {
			return
		}
		set[pid] = true
		for _, k := range kids[pid] {
			add(k)
		}
	}
	for _, e := range procs {
		if e.pgid == p.pgid {
			add(e.pid)
		}
	}
	for _, k := range kids[p.pgid] {
		add(k)
	}
	if p.spec.Detaches {
		for _, pid := range markedProcs(p.spec.Marker, false) {
			add(pid)
		}
	}
	var out []int
	for pid := range set {
		if e, ok := byPid[pid]; ok && !e.zombie {
			out = append(out, pid)
		}
	}
	return out
}

// descendants lists pid's live descendants.
func descendants(pid int) []int {
	procs := listProcs()
	kids := map[int][]procEntry{}
	for _, e := range procs {
		kids[e.ppid] = append(kids[e.ppid], e)
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			if !k.zombie {
				out = append(out, k.pid)
			}
			walk(k.pid)
		}
	}
	walk(pid)
	return out
}

// procStart is when a process started, to tell it from a later process
// that got the same pid.
func procStart(pid int) (uint64, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) || kp.Proc.P_stat == 5 {
		return 0, false
	}
	return uint64(kp.Proc.P_starttime.Sec)*1e6 + uint64(kp.Proc.P_starttime.Usec), true
}

// markedProcs lists the live processes whose environment carries marker
// (with prefix, any marker starting with it), read with kern.procargs2,
// which shows this user's processes.
func markedProcs(marker string, prefix bool) []int {
	var out []int
	for _, e := range listProcs() {
		if e.zombie {
			continue
		}
		m := envMarker(e.pid)
		if m == marker || (prefix && m != "" && len(m) >= len(marker) && m[:len(marker)] == marker) {
			out = append(out, e.pid)
		}
	}
	return out
}

// envMarker reads the marker in a process's environment from
// kern.procargs2: argc, the executable's path, then argv and the
// environment, NUL-separated.
func envMarker(pid int) string {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(b) < 4 {
		return ""
	}
	argc := int(binary.LittleEndian.Uint32(b[:4]))
	rest := b[4:]
	// The executable's path, then NUL padding.
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		rest = rest[i:]
	}
	rest = bytes.TrimLeft(rest, "\x00")
	for n := 0; n < argc && len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
	}
	return markerIn(rest)
}

// ThisPlatform describes macOS: bash, found by group and ancestry.
func ThisPlatform() Platform {
	return Platform{Shell: "bash -c", POSIX: true,
		Limits: "On macOS a process that leaves the command's process group, outlives its parent and clears its environment cannot be found, and may keep running."}
}

// sweepAdopted has nothing to do: no orphan is ever handed to the daemon here.
func sweepAdopted() {}
