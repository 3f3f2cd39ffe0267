//go:build unix

package search

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// gone reports whether a process no longer runs: it does not exist, or
// it is a zombie waiting for a parent that is not this test (init reaps
// orphans in its own time).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// reaped reports that pid is not even a zombie any more: its parent (this
// test's process, for a direct child) has waited for it.
func reaped(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
