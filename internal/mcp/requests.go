package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/tether-dev/tether/internal/tool"
)

// requestIDs gives every call the id of the request it belongs to, so that
// the changes of one run of work form one undo checkpoint. An MCP client
// names no chat turn: its session is the server's connection, and the
// rule that ends a turn is the one the daemon keeps for the editor
// (tool.Turns), with the gap the server was given.
type requestIDs struct{ turns *tool.Turns }

func newRequestIDs(gap time.Duration) *requestIDs {
	return &requestIDs{turns: tool.NewTurns(gap, time.Now, freshRequestID)}
}

// begin returns the request id of a call starting now; pair it with end.
func (r *requestIDs) begin() string {
	id := r.turns.Request("")
	r.turns.Enter(id)
	return id
}

// end marks the end of a call of request id: the quiet gap is counted
// from here.
func (r *requestIDs) end(id string) { r.turns.Leave(id) }

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
