//go:build unix

package daemon_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time, user and system, this process has used: what a
// benchmark costs on a machine whose load makes wall time wander.
func cpuTime() time.Duration {
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano())
}
