//go:build unix

package measure

import "syscall"

// Flush writes every dirty page of the system to disk. Between the rounds
// of two interleaved sides it keeps one side's deferred writes (a git that
// never syncs) out of the other side's fsyncs, which would otherwise flush
// them on the clock of whoever syncs next.
func Flush() { syscall.Sync() }
