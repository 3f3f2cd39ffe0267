//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time, user and system, used so far by this process
// and by the children it has waited for: the cost of a run on a machine
// whose load makes wall time wander.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}
