//go:build unix && !linux

package shell

import "syscall"

// survivors, without /proc, can only tell whether the process group still
// has members; processes that left it cannot be found. A negative pid
// stands for the whole group, which is how the caller signals it.
func survivors(pgid int, _ string, _ bool) []int {
	if pgid > 0 && syscall.Kill(-pgid, 0) == nil {
		return []int{-pgid}
	}
	return nil
}
