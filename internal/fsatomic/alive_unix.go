//go:build unix

package fsatomic

import (
	"errors"
	"syscall"
)

// ProcessAlive reports whether pid names a running process (one we may not
// signal still runs).
func ProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
