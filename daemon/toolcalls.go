package daemon

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

func (s *server) toolsList(context.Context, *protocol.None) (protocol.ToolsListResult, error) {
	return protocol.ToolsListResult{Tools: s.reg.Offered(s.env)}, nil
}

func (s *server) toolsCall(ctx context.Context, p *protocol.ToolCallParams) (protocol.ToolCallResult, error) {
	c, err := s.newCall(protocol.MethodToolsCall, p)
	if err != nil {
		return protocol.ToolCallResult{}, err
	}
	c.ID = callID(ctx)
	s.turns.Enter(c.RequestID) // a request requests/turn gave stays open while its calls run
	defer s.turns.Leave(c.RequestID)
	res := s.reg.Invoke(ctx, c)
	out := protocol.ToolCallResult{Content: res.Content, IsError: res.IsError, Diff: res.Diff}
	if !res.IsError && res.Diff != "" {
		out.Checkpoint = s.checkpointOf(c.RequestID)
	}
	return out, nil
}

// requestsTurn answers requests/turn: the request a call of the chat
// session starting now belongs to (see tool.Turns).
func (s *server) requestsTurn(_ context.Context, p *protocol.TurnParams) (protocol.TurnResult, error) {
	if p.Session == "" {
		return protocol.TurnResult{}, invalidParams("requests/turn needs \"session\": a key that names the chat session the call comes from")
	}
	return protocol.TurnResult{RequestID: s.turns.Request(p.Session)}, nil
}

// newRequestID names a request the daemon starts, as a random UUID: as
// the editor named them when it kept the turns itself.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// toolsPrepare previews a call without side effects. A read-only tool is
// not run at all: running it would do the read (and record it) just to
// describe it. A tool that changes things runs with Prepare set, which
// stops it before any change and says whether it would ask.
func (s *server) toolsPrepare(ctx context.Context, p *protocol.ToolPrepareParams) (protocol.ToolPrepareResult, error) {
	c, err := s.newCall(protocol.MethodToolsPrepare, p)
	if err != nil {
		return protocol.ToolPrepareResult{}, err
	}
	t, ok := s.reg.Lookup(c.Name)
	if !ok {
		return protocol.ToolPrepareResult{Title: c.Name, Message: "There is no tool named " + c.Name}, nil
	}
	message := t.Describe(c.Args)
	if tool.IsReadOnly(t) && !tool.Previews(t) {
		res := protocol.ToolPrepareResult{Title: message, Message: message}
		if req := readApproval(c); req != nil {
			res.NeedsApproval, res.Approval = true, req
		}
		return res, nil
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
	out := protocol.ToolPrepareResult{Title: title, Message: message, NeedsApproval: res.NeedsApproval, Diff: res.Diff}
	if res.NeedsApproval {
		out.Approval = c.Asks
	}
	return out, nil
}

// readApproval says what a read-only call would ask before reading: the
// read tools name what they read in "path", and one outside the workspace
// asks. The tool itself is not run (that would do the read).
func readApproval(c *tool.Call) *protocol.ApprovalRequestParams {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
		return nil
	}
	loc, err := c.Locate(a.Path)
	if err != nil {
		return nil
	}
	req, err := c.ReadApproval(loc)
	if err != nil {
		return nil
	}
	return req
}

// newCall builds a tool.Call from tools/call or tools/prepare params.
func (s *server) newCall(method string, p *protocol.ToolCallParams) (*tool.Call, error) {
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
