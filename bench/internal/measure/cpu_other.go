//go:build !unix

package measure

import "time"

// CPU is not measured where getrusage is missing; CPU columns read 0.
func CPU() time.Duration { return 0 }

// ProcessCPU is not measured here either.
func ProcessCPU() time.Duration { return 0 }
