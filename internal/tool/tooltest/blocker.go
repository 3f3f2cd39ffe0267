// Package tooltest holds stand-in tools for the tests of what runs tools
// (the daemon, sub-agents).
package tooltest

import (
	"context"
	"sync"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// Blocker is a stand-in for grep that blocks until Release is closed or
// its call is cancelled, so that a test can see which calls overlap: each
// call sends its pattern on Started as it begins.
type Blocker struct {
	Started chan string
	Release chan struct{}

	mu       sync.Mutex
	running  int
	returned int
}

// NewBlocker makes a Blocker whose Started holds up to eight patterns.
func NewBlocker() *Blocker {
	return &Blocker{Started: make(chan string, 8), Release: make(chan struct{})}
}

type grepArgs struct {
	Pattern string `json:"pattern"`
}

// Tool is the blocking grep; a released call answers "found <pattern>".
func (b *Blocker) Tool() tool.Tool {
	return tool.New(tool.Def[grepArgs]{
		Name: "grep", Doc: "Blocks until released.", Risk: protocol.RiskLow, ReadOnly: true,
		Run: func(ctx context.Context, c *tool.Call, a grepArgs) (tool.Result, error) {
			b.mu.Lock()
			b.running++
			b.mu.Unlock()
			defer func() {
				b.mu.Lock()
				b.running--
				b.returned++
				b.mu.Unlock()
			}()
			b.Started <- a.Pattern
			select {
			case <-b.Release:
				return tool.Text("found " + a.Pattern), nil
			case <-ctx.Done():
				return tool.Cancelled("grep"), nil
			}
		},
	})
}

// Counts says how many calls are running now and how many have returned.
func (b *Blocker) Counts() (running, returned int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running, b.returned
}
