package shell

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/internal/children"
)

// On Linux every process a command starts is found by ancestry. The
// daemon makes itself a child subreaper (PR_SET_CHILD_SUBREAPER): an
// orphan anywhere below it, one whose parent died, is handed to the daemon
// instead of to init. So nothing a command starts ever leaves the daemon's
// tree, whether it changes its process group, starts a new session or
// clears its environment: while its command's shell lives it descends from
// that shell, and once orphaned it is a child of the daemon that the
// daemon did not start. Such an adopted child belongs to the command whose
// marker it carries, if that command still runs; one that carries no live
// marker cannot be traced to any command and is stopped at the next sweep,
// which comes at the latest when its own command ends.
//
// Where a cgroup can be made (cgroup v2, a folder the daemon may write),
// every command of a daemon is also put in that daemon's cgroup, which
// outlives the daemon: after a SIGKILL the next daemon stops everything
// left in it.

type tree struct{}

func (tree) release() {}

var (
	subreaperOnce sync.Once
	// subreaper says the daemon is a child subreaper: then every process
	// of its commands is in its tree, and markers need not be searched for
	// across the whole system.
	subreaper bool
)

// prepareTree makes this process a child subreaper, once.
func prepareTree() {
	subreaperOnce.Do(func() {
		subreaper = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	})
}

// setParentDeathSignal asks the kernel to kill the shell if the daemon dies
// without cleaning up (SIGKILL, a crash). It covers the shell only; what
// the shell started is stopped by the next daemon (its cgroup, its process
// groups, its markers). Strictly the signal follows the OS thread that
// started the child, and the Go runtime does not end its threads while the
// program runs, so in practice it follows the daemon.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// startInTree starts cmd, in the manager's cgroup when it has one. Should
// the kernel refuse the cgroup, the command starts without it (as a new
// Cmd: one cannot be started twice) and the manager stops using it.
func startInTree(cmd *exec.Cmd, spec Spec) (*exec.Cmd, tree, error) {
	cg := spec.jobs.cgroupDir()
	if cg == nil {
		return cmd, tree{}, start(cmd)
	}
	plain := *cmd.SysProcAttr
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(cg.Fd())
	err := start(cmd)
	if err == nil {
		return cmd, tree{}, nil
	}
	retry := &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, Stdout: cmd.Stdout, Stderr: cmd.Stderr, ExtraFiles: cmd.ExtraFiles, SysProcAttr: &plain}
	if rerr := start(retry); rerr != nil {
		return retry, tree{}, rerr // not the cgroup's fault: a missing shell or folder
	}
	spec.jobs.dropCgroup(err)
	return retry, tree{}, nil
}

// adoptedAny reports, cheaply, whether this process has a child it did not
// start: an orphan handed to it. Where the kernel does not list children,
// it says yes, and the caller reads the process table.
func adoptedAny() bool {
	if !subreaper {
		return false
	}
	// No child at all, the usual case between commands, costs one call.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); errors.Is(err, unix.ECHILD) {
		return false
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return true
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			return true
		}
		for _, f := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil && !children.Own(pid) {
				return true
			}
		}
	}
	return false
}

// members lists the live processes of the command: its process group, the
// shell's descendants, and the orphans this process adopted that are the
// command's (its marker) or nobody's (no live command's marker), with
// their descendants. Dead adopted children are reaped on the way.
func (p *Process) members() []int {
	procs := readProcs()
	kids := map[int][]int{}
	for pid, st := range procs {
		kids[st.ppid] = append(kids[st.ppid], pid)
	}
	set := map[int]bool{}
	var add func(pid int)
	add = func(pid int) {
		if set[pid] {
			return
		}
		set[pid] = true
		for _, k := range kids[pid] {
			add(k)
		}
	}
	for pid, st := range procs {
		if st.pgrp == p.pgid {
			add(pid)
		}
	}
	for _, k := range kids[p.pgid] {
		add(k)
	}
	self := os.Getpid()
	children.Sweep(func(own func(int) bool) {
		for _, pid := range kids[self] {
			if own(pid) {
				continue
			}
			if procs[pid].dead() {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
				continue
			}
			if m := envMarker(pid); m != "" && m != p.spec.Marker && liveMarker(m) {
				continue // another running command's
			}
			add(pid)
		}
	})
	if !subreaper || p.spec.Detaches {
		for _, pid := range markedProcs(p.spec.Marker, false) {
			add(pid)
		}
	}
	out := make([]int, 0, len(set))
	for pid := range set {
		if st, ok := procs[pid]; ok && !st.dead() {
			out = append(out, pid)
		}
	}
	return out
}

// readProcs reads every process's state, parent and group from /proc,
// leaving out this process and kernel threads.
func readProcs() map[int]procInfo {
	out := map[int]procInfo{}
	dir, err := os.Open("/proc")
	if err != nil {
		return out
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return out
	}
	self := os.Getpid()
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		st, ok := procStat(pid)
		if !ok || st.flags&pfKthread != 0 {
			continue
		}
		out[pid] = st
	}
	return out
}

// markedProcs lists the live processes carrying marker in their
// environment (with prefix, any marker starting with it: all the runs of
// one daemon). It finds the ones that left the daemon's tree before it
// could hold them (a daemon that died), as long as they kept the
// environment they inherited.
func markedProcs(marker string, prefix bool) []int {
	entry := []byte("\x00" + markerVar + "=" + marker)
	if !prefix {
		entry = append(entry, 0)
	}
	var pids []int
	for pid, st := range readProcs() {
		if !st.dead() && hasEnvEntry(pid, entry) {
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
	ppid  int
	pgrp  int
	flags uint64
	start uint64
}

// dead reports a process that is gone in all but name: a zombie, or one
// in the middle of exiting.
func (p procInfo) dead() bool {
	return p.state == 'Z' || p.state == 'X' || p.flags&pfExiting != 0
}

// procStat reads a process's state, parent, process group, flags and start
// time from /proc/<pid>/stat. The command name (field 2) may hold spaces
// and parentheses, so parsing starts after its last ')'.
func procStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procInfo{}, false
	}
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime ...
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 20 || len(fields[0]) != 1 {
		return procInfo{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	if err1 != nil || err2 != nil {
		return procInfo{}, false
	}
	flags, _ := strconv.ParseUint(string(fields[6]), 10, 64)
	start, _ := strconv.ParseUint(string(fields[19]), 10, 64)
	return procInfo{state: fields[0][0], ppid: ppid, pgrp: pgrp, flags: flags, start: start}, true
}

// procStart is when a process started (in the kernel's clock ticks since
// boot), to tell it from a later process that got the same pid.
func procStart(pid int) (uint64, bool) {
	st, ok := procStat(pid)
	return st.start, ok && !st.dead()
}

// envMarker reads the marker in a process's environment, "" when none.
func envMarker(pid int) string {
	b, err := readEnviron(pid)
	if err != nil {
		return ""
	}
	return markerIn(b)
}

// hasEnvEntry reports whether the process's initial environment holds
// entry, which starts with a NUL so that it only matches a whole variable.
func hasEnvEntry(pid int, entry []byte) bool {
	b, err := readEnviron(pid)
	if err != nil || len(b) == 0 {
		return false
	}
	env := make([]byte, 0, len(b)+2)
	env = append(env, 0)
	env = append(env, b...)
	env = append(env, 0)
	return bytes.Contains(env, entry)
}

// readEnviron reads a process's initial environment. A process in the
// middle of execve shows an empty one for a moment (its new memory is not
// set up yet): that is exactly the moment a daemon started with setsid is
// caught in, so an empty read is retried.
func readEnviron(pid int) ([]byte, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/environ"
	for try := 0; ; try++ {
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 0 || try == envRetries {
			return b, err
		}
		time.Sleep(time.Millisecond)
	}
}

// envRetries bounds the re-reads of an empty environment.
const envRetries = 20

// cgroup is a daemon's cgroup: a folder in the cgroup v2 hierarchy below
// the daemon's own, holding every command the daemon runs.
type cgroup struct {
	path string
	dir  *os.File
}

// openCgroup makes the daemon's cgroup, named after its owner marker, or
// returns nil where none can be made (no cgroup v2, a folder the daemon
// may not write, a container that hides the hierarchy).
func openCgroup(owner string) *cgroup {
	base := ownCgroupDir()
	if base == "" {
		return nil
	}
	path := filepath.Join(base, "tether-"+owner)
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil
	}
	dir, err := os.Open(path)
	if err != nil {
		os.Remove(path)
		return nil
	}
	return &cgroup{path: path, dir: dir}
}

// ownCgroupDir is the folder of this process's cgroup in the cgroup v2
// hierarchy, "" when there is none.
func ownCgroupDir() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var rel string
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if r, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = r, true
		}
	}
	if !found {
		return ""
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		// id parent major:minor root mountpoint options ... - fstype source opts
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		root, mnt := f[3], f[4]
		if root != "/" {
			continue
		}
		return filepath.Join(mnt, rel)
	}
	return ""
}

func (cg *cgroup) fd() *os.File { return cg.dir }

// stop kills every process in the cgroup and removes it once empty.
func (cg *cgroup) stop() {
	cg.dir.Close()
	killCgroup(cg.path)
}

// killCgroup kills every process in the cgroup at path (cgroup.kill where
// the kernel has it, SIGKILL one by one elsewhere), waits for them to go,
// and removes the folder.
func killCgroup(path string) {
	if _, err := os.Stat(filepath.Join(path, "cgroup.procs")); err != nil {
		return
	}
	deadline := time.Now().Add(killWait + DefaultGrace)
	for {
		b, _ := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		pids := bytes.Fields(b)
		if len(pids) == 0 {
			break
		}
		if os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0) != nil {
			for _, f := range pids {
				if pid, err := strconv.Atoi(string(f)); err == nil {
					signalPid(pid, syscall.SIGKILL)
				}
			}
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for try := 0; try < 50; try++ {
		if err := os.Remove(path); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordGroups: commands' process groups are recorded for the next daemon.
const recordGroups = true

// isolationName says how commands are held together here.
func isolationName() string {
	if subreaper {
		return "process groups, and the daemon as child subreaper (every descendant found by ancestry)"
	}
	return "process groups and environment markers (the kernel refused to make the daemon a child subreaper)"
}

// descendants lists pid's live descendants.
func descendants(pid int) []int {
	procs := readProcs()
	kids := map[int][]int{}
	for p, st := range procs {
		kids[st.ppid] = append(kids[st.ppid], p)
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			if !procs[k].dead() {
				out = append(out, k)
			}
			walk(k)
		}
	}
	walk(pid)
	return out
}

// ThisPlatform describes Linux: bash, and every process found by ancestry
// (or, where the kernel refuses a subreaper, by group and marker).
func ThisPlatform() Platform {
	prepareTree()
	p := Platform{Shell: "bash -c", POSIX: true}
	if !subreaper {
		p.Limits = "Here a process that leaves the command's process group and clears its environment may escape being stopped."
	}
	return p
}

// sweepAdopted stops every orphan this process adopted, with its
// descendants: at shutdown no command is left that could own one.
func sweepAdopted() {
	if !subreaper {
		return
	}
	var pids []int
	self := os.Getpid()
	procs := readProcs()
	children.Sweep(func(own func(int) bool) {
		for pid, st := range procs {
			if st.ppid != self || own(pid) {
				continue
			}
			if st.dead() {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
				continue
			}
			pids = append(pids, pid)
			pids = append(pids, descendants(pid)...)
		}
	})
	if len(pids) == 0 {
		return
	}
	for _, pid := range pids {
		signalPid(pid, syscall.SIGTERM)
		signalPid(pid, syscall.SIGCONT)
	}
	deadline := time.Now().Add(DefaultGrace)
	for time.Now().Before(deadline) && anyAlive(pids) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range pids {
		signalPid(pid, syscall.SIGKILL)
	}
	// Reap what was adopted, so no zombie is left behind either; a
	// process SIGKILL has not ended yet (uninterruptible sleep) is not
	// waited for past killWait.
	deadline = time.Now().Add(killWait)
	for _, pid := range pids {
		for {
			st, ok := procStat(pid)
			if !ok || st.ppid != self {
				break
			}
			var ws unix.WaitStatus
			if got, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got == pid || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if st, ok := procStat(pid); ok && !st.dead() {
			return true
		}
	}
	return false
}
