//go:build unix

package fsatomic

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid names a running process (one we may not
// signal still runs).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
