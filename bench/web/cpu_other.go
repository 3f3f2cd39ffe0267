//go:build !unix

package main

import "time"

// cpuTime is not measured where getrusage is missing; the CPU columns read 0.
func cpuTime() time.Duration { return 0 }
