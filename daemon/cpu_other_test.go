//go:build !unix

package daemon_test

import "time"

// cpuTime is not measured where getrusage is missing; the figure reads 0.
func cpuTime() time.Duration { return 0 }
