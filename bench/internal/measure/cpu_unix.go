//go:build unix

package measure

import (
	"syscall"
	"time"
)

// CPU is the CPU time, user and system, used so far by this process and by
// the children it has waited for: the cost of a run on a machine whose
// load makes wall time wander.
func CPU() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

// ProcessCPU is the CPU time this process alone has used so far.
func ProcessCPU() time.Duration {
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return 0
	}
	return tv(self.Utime) + tv(self.Stime)
}

func tv(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
