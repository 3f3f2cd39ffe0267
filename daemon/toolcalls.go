package daemon

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/jsonscan"
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
	c.ID = callID(ctx)
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
func (s *server) newCall(method string, raw json.RawMessage) (*tool.Call, error) {
	p, ok := toolCallParams(raw)
	if !ok {
		if err := decodeParams(method, raw, &p); err != nil {
			return nil, err
		}
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

// toolCallParams decodes the params of tools/call without copying the
// arguments (they stay in the message's body, which the call holds) and
// without encoding/json's own check of text the reader has checked.
// It declines (ok false) anything it is not sure of: a member of an
// unexpected type, or a name that differs from a field's only in case,
// which encoding/json would accept; decodeParams then decides.
func toolCallParams(raw []byte) (p protocol.ToolCallParams, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return p, true
	}
	ok = true
	str := func(v []byte, dst *string) {
		switch {
		case v[0] == '"':
			*dst, ok = jsonscan.Unquote(v)
		case string(v) != "null":
			ok = false
		}
	}
	isObject := jsonscan.Members(raw, func(key, value []byte) {
		if !ok {
			return
		}
		switch string(key) {
		case `"name"`:
			str(value, &p.Name)
		case `"arguments"`:
			p.Arguments = value
		case `"requestId"`:
			str(value, &p.RequestID)
		case `"session"`:
			str(value, &p.Session)
		case `"tokenBudget"`:
			n, err := strconv.ParseInt(string(value), 10, 0)
			if err == nil {
				p.TokenBudget = int(n)
			} else if string(value) != "null" {
				ok = false
			}
		default:
			// encoding/json matches names regardless of case, and keys
			// may be escaped: leave anything like a field to it.
			name, _ := jsonscan.Unquote(key)
			for _, f := range [...]string{"name", "arguments", "requestId", "session", "tokenBudget"} {
				if strings.EqualFold(name, f) {
					ok = false
				}
			}
		}
	})
	return p, ok && isObject
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
