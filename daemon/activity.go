package daemon

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type callIDKey struct{}

// withCallID carries a call's JSON-RPC id to the tool call it runs, which
// reports its activity under that id.
func withCallID(ctx context.Context, id jsonrpc2.ID) context.Context {
	return context.WithValue(ctx, callIDKey{}, fmt.Sprint(id))
}

// callID is the JSON-RPC id of the call ctx belongs to, or "".
func callID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// toolsResult answers tools/result: a recent call's result, kept for a
// client that shows activity, so a row the user clicks can show it again.
func (s *server) toolsResult(_ context.Context, p *protocol.ToolResultParams) (protocol.ToolResultResult, error) {
	if p.CallID == "" {
		return protocol.ToolResultResult{}, invalidParams("tools/result needs \"callId\": the callId of a tools/activity notification")
	}
	res, ok := s.env.Results.Get(p.CallID)
	if !ok {
		return protocol.ToolResultResult{}, invalidParams("no result is kept for call %q: Tether keeps the results of the latest %d calls, and only for a client that shows activity (capabilities.todo)", p.CallID, tool.MaxKeptResults)
	}
	return res, nil
}
