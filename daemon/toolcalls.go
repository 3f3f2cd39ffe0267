package daemon

import (
	"context"
	"sync"

	"encoding/json"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

func (s *server) toolsList(context.Context, json.RawMessage) (any, error) {
	return protocol.ToolsListResult{Tools: s.reg.Offered(s.env)}, nil
}

func (s *server) toolsCall(ctx context.Context, raw json.RawMessage) (any, error) {
	c, err := s.newCall(protocol.MethodToolsCall, raw)
	if err != nil {
		return nil, err
	}
	res := s.reg.Invoke(ctx, c)
	out := protocol.ToolCallResult{Content: res.Content, IsError: res.IsError, Diff: res.Diff}
	if !res.IsError && res.Diff != "" {
		out.Checkpoint = s.checkpointOf(c.RequestID)
	}
	return out, nil
}

// toolsPrepare previews a call without side effects. A read-only tool is
// not run at all: running it would do the read (and record it) just to
// describe it. A tool that changes things runs with Prepare set, which
// stops it before any change and says whether it would ask.
func (s *server) toolsPrepare(ctx context.Context, raw json.RawMessage) (any, error) {
	c, err := s.newCall(protocol.MethodToolsPrepare, raw)
	if err != nil {
		return nil, err
	}
	t, ok := s.reg.Lookup(c.Name)
	if !ok {
		return protocol.ToolPrepareResult{Title: c.Name, Message: "There is no tool named " + c.Name}, nil
	}
	message := t.Describe(c.Args)
	if tool.IsReadOnly(t) {
		return protocol.ToolPrepareResult{Title: message, Message: message}, nil
	}
	c.Prepare = true
	res := s.reg.Invoke(ctx, c)
	title := res.Title
	if title == "" {
		title = message
	}
	if res.IsError {
		// The call will fail the same way when run; the message says why.
		return protocol.ToolPrepareResult{Title: title, Message: res.Content, Diff: res.Diff}, nil
	}
	return protocol.ToolPrepareResult{Title: title, Message: message, NeedsApproval: res.NeedsApproval, Diff: res.Diff}, nil
}

// newCall builds a tool.Call from tools/call or tools/prepare params.
func (s *server) newCall(method string, raw json.RawMessage) (*tool.Call, error) {
	var p protocol.ToolCallParams
	if err := decodeParams(method, raw, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, invalidParams("%s needs \"name\": the tool to run (tools/list names them)", method)
	}
	if p.TokenBudget < 0 {
		return nil, invalidParams("%s: tokenBudget is %d; it must be positive, or absent for the default", method, p.TokenBudget)
	}
	return &tool.Call{
		Name:      p.Name,
		Args:      p.Arguments,
		RequestID: p.RequestID,
		Budget:    tool.NewBudget(p.TokenBudget, s.env.Settings.TokenBudget),
		Session:   s.sessions.get(p.Session),
		Env:       s.env,
	}, nil
}

// sessions holds each agent's read records, by the session id its calls
// name; the empty id is the main agent.
type sessions struct {
	mu sync.Mutex
	m  map[string]*tool.Session
}

func (ss *sessions) get(id string) *tool.Session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	sess := ss.m[id]
	if sess == nil {
		sess = tool.NewSession()
		ss.m[id] = sess
	}
	return sess
}
