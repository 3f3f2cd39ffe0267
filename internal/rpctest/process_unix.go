//go:build unix

package rpctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// Kill ends the daemon and anything left in its process group.
func (d *Daemon) Kill() {
	_ = syscall.Kill(-d.Pid(), syscall.SIGKILL)
	<-d.waited
	d.stdin.Close()
}

// KillDaemon ends the daemon alone with SIGKILL, as a crash or the OOM
// killer would, leaving whatever it started to fend for itself.
func (d *Daemon) KillDaemon() {
	_ = syscall.Kill(d.Pid(), syscall.SIGKILL)
	<-d.waited
	d.stdin.Close()
}

// GroupAlive reports whether any process is left in the daemon's process
// group (the daemon itself, or a child it started and did not stop).
func (d *Daemon) GroupAlive() bool {
	return syscall.Kill(-d.Pid(), 0) == nil
}

// ProcessAlive reports whether pid exists and is not a zombie.
func ProcessAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill(0) is all we know
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// Reaped reports that pid is gone for good: not running, not even a
// zombie waiting for its parent to collect it.
func Reaped(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
