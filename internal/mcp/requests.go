package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// requestIDs gives every call the id of the request it belongs to, so that
// the changes of one run of work form one undo checkpoint. An MCP client
// names no chat turn, so the extension's rule stands in for one: calls
// that follow each other with at most gap between the end of one and the
// start of the next, or that overlap, are one request.
type requestIDs struct {
	gap   time.Duration
	now   func() time.Time
	newID func() string

	mu      sync.Mutex
	id      string
	running int
	last    time.Time // when the last call ended
}

func newRequestIDs(gap time.Duration) *requestIDs {
	return &requestIDs{gap: gap, now: time.Now, newID: freshRequestID}
}

// begin returns the request id of a call starting now; pair it with end.
func (r *requestIDs) begin() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id == "" || (r.running == 0 && r.now().Sub(r.last) > r.gap) {
		r.id = r.newID()
	}
	r.running++
	return r.id
}

// end marks the end of a call: the quiet gap is counted from here.
func (r *requestIDs) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running--
	r.last = r.now()
}

// freshRequestID names a request by when it started, so `tether
// checkpoints` lists MCP work in a readable order.
func freshRequestID() string {
	return "mcp-" + time.Now().UTC().Format("20060102T150405") + "-" + randomHex(4)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
