//go:build unix

package mcp

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has the pid: it ended and was
// reaped.
func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// killProcess stops a process a failed test left behind.
func killProcess(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
