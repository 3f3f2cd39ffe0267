//go:build unix

package shell

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/children"
)

// supported says whether commands can run here with their own process
// group, which every guarantee of this package rests on.
const supported = true

// shellArgs runs a command line with `<shell> -c`.
func shellArgs(command string) []string { return []string{"-c", command} }

// startTree starts cmd as the leader of its own process group, so the
// whole tree can be signalled at once. A group, not a new session: on
// kernels with scheduler autogroups (most desktop distributions) setsid
// creates a scheduling group per command, which costs more than running
// `bash -c true` itself. Being outside the terminal's foreground group
// still keeps a command from reading the terminal the daemon was started
// from: a read stops it (SIGTTIN) instead of taking the user's keys.
func startTree(cmd *exec.Cmd, spec Spec) (*exec.Cmd, tree, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{} // a sandbox may have asked for namespaces
	}
	cmd.SysProcAttr.Setpgid = true
	setParentDeathSignal(cmd.SysProcAttr)
	return startInTree(cmd, spec)
}

// termSignals ask a command to end: SIGCONT follows SIGTERM so that a
// stopped process (one that tried to read the terminal) wakes up to act on
// it.
var termSignals = []syscall.Signal{syscall.SIGTERM, syscall.SIGCONT}

// signalGroup sends sig to every process in the group pgid (signal 0 only
// checks that there is one). It reports false when the group has no
// member left.
func signalGroup(pgid int, sig syscall.Signal) bool {
	err := syscall.Kill(-pgid, sig)
	return !errors.Is(err, syscall.ESRCH)
}

// signalPid sends sig to one process, ignoring one that is already gone.
func signalPid(pid int, sig syscall.Signal) {
	_ = syscall.Kill(pid, sig)
}

// tryLock takes an exclusive lock on f without waiting. The kernel drops
// it when the holder dies, however it dies, which is what tells a live
// daemon's folder from a dead one's.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// terminate stops every process of the command: SIGTERM, a grace period,
// then SIGKILL. It returns how many it found. The fast path, a group with
// no member left and no orphan handed to this process, costs a few system
// calls, so ordinary commands pay little for this; the process table is
// read only when something survived or sweep asks for it.
func (p *Process) terminate(sweep bool) int {
	if !sweep && !signalGroup(p.pgid, 0) && !adoptedAny() {
		return 0
	}
	// Counted before signalling: a process that dies of SIGTERM at once
	// was still left behind.
	alive := p.members()
	found := len(alive)
	for _, sig := range termSignals {
		signalGroup(p.pgid, sig)
		for _, pid := range alive {
			signalPid(pid, sig)
		}
	}
	if len(alive) > 0 {
		alive = p.awaitGone(p.spec.Grace)
	}
	if len(alive) > 0 {
		signalGroup(p.pgid, syscall.SIGKILL)
		for _, pid := range alive {
			signalPid(pid, syscall.SIGKILL)
		}
		p.awaitGone(killWait)
	}
	return found
}

// awaitGone polls until the command has no live process or limit passes,
// and returns what is still alive.
func (p *Process) awaitGone(limit time.Duration) []int {
	deadline := time.Now().Add(limit)
	pause := time.Millisecond
	for {
		alive := p.members()
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(pause)
		pause = min(pause*2, 50*time.Millisecond)
	}
}

// exitStatus reads the exit code, or the signal that ended the process.
func exitStatus(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return s.String()
}

// start starts cmd listed as this process's own child (see package
// children).
func start(cmd *exec.Cmd) error { return children.Start(cmd) }
