//go:build unix

package shell

import (
	"errors"
	"os"
	"syscall"
)

// supported says whether commands can run here with their own process
// group, which every guarantee of this package rests on.
const supported = true

// sysProcAttr makes the command the leader of its own process group, so
// the whole tree can be signalled at once. A group, not a new session: on
// kernels with scheduler autogroups (most desktop distributions) setsid
// creates a scheduling group per command, which costs more than running
// `bash -c true` itself. Being outside the terminal's foreground group
// still keeps a command from reading the terminal the daemon was started
// from: a read stops it (SIGTTIN) instead of taking the user's keys.
func sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(a)
	return a
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
