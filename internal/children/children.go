// Package children keeps the list of the child processes this program
// started itself.
//
// Tether's daemon is a child subreaper on Linux (see package shell): an
// orphan anywhere below it is handed to it, not to init, so that whatever
// a command leaves behind can still be found by ancestry and stopped. Its
// direct children are then of two kinds: those it started (a shell, a
// ripgrep) and orphans it adopted. Only the second kind may be swept, so
// every part of Tether that starts a process starts it through Start and
// reports its end with Done.
package children

import (
	"os/exec"
	"sync"
)

var (
	// gate orders starts and sweeps: a start holds it shared from before
	// the fork until the child is listed, a sweep holds it alone, so that
	// a sweep never sees a child of ours that is not listed yet.
	gate sync.RWMutex
	mu   sync.Mutex
	own  = map[int]int{}
)

// Start starts cmd and lists its process as this program's own until Done.
func Start(cmd *exec.Cmd) error {
	gate.RLock()
	defer gate.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	mu.Lock()
	own[cmd.Process.Pid]++
	mu.Unlock()
	return nil
}

// Done takes pid off the list once it has been waited for.
func Done(pid int) {
	mu.Lock()
	defer mu.Unlock()
	if own[pid]--; own[pid] <= 0 {
		delete(own, pid)
	}
}

// Sweep runs fn while no child can be started, with own telling whether a
// pid is a child this program started (and has not waited for yet).
func Sweep(fn func(own func(pid int) bool)) {
	gate.Lock()
	defer gate.Unlock()
	mu.Lock()
	snapshot := make(map[int]bool, len(own))
	for pid := range own {
		snapshot[pid] = true
	}
	mu.Unlock()
	fn(func(pid int) bool { return snapshot[pid] })
}

// Own reports whether pid is a child this program started and has not
// waited for yet. A child being started this very moment may not be
// listed yet: use Sweep where that matters.
func Own(pid int) bool {
	mu.Lock()
	defer mu.Unlock()
	return own[pid] > 0
}
