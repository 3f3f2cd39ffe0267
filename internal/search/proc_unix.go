//go:build unix

package search

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts ripgrep in a process group of its own, and makes
// cancellation kill that whole group: whatever ripgrep (or a wrapper
// script standing in for it) started dies with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills the process group led by cmd's process. It is only
// called before Wait, while the leader's pid (alive or a zombie) cannot
// have been reused.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		if err == syscall.ESRCH {
			return os.ErrProcessDone
		}
		return cmd.Process.Kill()
	}
	return nil
}
