// Package measure holds what every benchmark program of the project
// shares: percentiles of timings, CPU time of this process and its
// children or of another process, resident memory, how figures are
// printed, and the workspaces, environment and shadow git the programs
// run against. Figures are printed, never asserted.
package measure

import (
	"fmt"
	"os"
	"slices"
	"time"
)

// Median is the middle timing.
func Median(ds []time.Duration) time.Duration { return Percentile(ds, 50) }

// Percentile is the p-th percentile of the timings (nearest rank below).
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// Ms writes a duration in milliseconds with one decimal.
func Ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// Us writes a duration in whole microseconds.
func Us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d.Nanoseconds())/1e3) }

// Ratio writes a/b as a factor, "1.23×".
func Ratio(a, b time.Duration) string { return fmt.Sprintf("%.2f×", float64(a)/float64(b)) }

// Dur writes a duration as Go does, rounded to the microsecond: "1.234ms",
// "350µs"; for columns whose figures span several units.
func Dur(d time.Duration) string { return d.Round(time.Microsecond).String() }

// MiB writes a size in KiB, as RSS returns it, in mebibytes with one
// decimal.
func MiB(kib int) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// ExitedCPU is the user and system CPU time of a process that has been
// waited for; 0 before then. Unlike CPU it is measured on every system.
func ExitedCPU(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}
