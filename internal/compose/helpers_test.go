package compose_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tether-dev/tether/internal/compose"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

type rawArgs struct {
	Text string         `json:"text,omitempty"`
	N    any            `json:"n,omitempty"`
	List []any          `json:"list,omitempty"`
	Obj  map[string]any `json:"obj,omitempty"`
}

// echo answers with the arguments it received, as JSON.
var echo = tool.New(tool.Def[rawArgs]{
	Name: "echo", Doc: "Answers with its arguments.", ReadOnly: true,
	Run: func(_ context.Context, c *tool.Call, _ rawArgs) (tool.Result, error) {
		return tool.Text(string(c.Args)), nil
	},
})

type failArgs struct {
	Why string `json:"why"`
}

// failing always fails, with the reason it is given.
var failing = tool.New(tool.Def[failArgs]{
	Name: "failing", Doc: "Always fails.", ReadOnly: true,
	Run: func(_ context.Context, _ *tool.Call, a failArgs) (tool.Result, error) {
		return tool.Failf("failed: %s", a.Why), nil
	},
})

// gate blocks each call until want calls are inside at once (or the
// call's context ends), and records the most that ever were.
type gate struct {
	mu      sync.Mutex
	inside  int
	most    int
	want    int
	open    bool
	release chan struct{}
	entered chan struct{}
}

func newGate(want int) *gate {
	return &gate{want: want, release: make(chan struct{}), entered: make(chan struct{}, 1000)}
}

type gateArgs struct {
	I int `json:"i"`
}

func (g *gate) tool() tool.Tool {
	return tool.New(tool.Def[gateArgs]{
		Name: "gate", Doc: "Waits for the others.", ReadOnly: true, Repeatable: true,
		Run: func(ctx context.Context, _ *tool.Call, a gateArgs) (tool.Result, error) {
			g.mu.Lock()
			g.inside++
			g.most = max(g.most, g.inside)
			if g.inside == g.want && !g.open {
				g.open = true
				close(g.release)
			}
			g.mu.Unlock()
			g.entered <- struct{}{}
			defer func() { g.mu.Lock(); g.inside--; g.mu.Unlock() }()
			select {
			case <-g.release:
				return tool.Text(fmt.Sprint("passed ", a.I)), nil
			case <-ctx.Done():
				return tool.Cancelled("gate"), nil
			}
		},
	})
}

// recHost records activity and answers approvals from a list.
type recHost struct {
	tool.NoHost
	mu       sync.Mutex
	answers  []protocol.Answer
	asked    []protocol.ApprovalRequestParams
	activity []protocol.Activity
	onAsk    func()
}

func (h *recHost) Approve(_ context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, req)
	if h.onAsk != nil {
		h.onAsk()
	}
	if len(h.answers) == 0 {
		return protocol.ApprovalRequestResult{}, tool.ErrNobodyToAsk
	}
	a := h.answers[0]
	h.answers = h.answers[1:]
	return protocol.ApprovalRequestResult{Answer: a}, nil
}

func (h *recHost) Activity(_ context.Context, a protocol.Activity) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.activity = append(h.activity, a)
}

type fixture struct {
	t    *testing.T
	dir  string
	env  *tool.Env
	host *recHost
	reg  *tool.Registry
	sess *tool.Session
	lim  compose.Limits
}

func newFixture(t *testing.T, tools ...tool.Tool) *fixture {
	t.Helper()
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := &recHost{}
	f := &fixture{t: t, dir: ws.Primary(), host: host, sess: tool.NewSession()}
	f.env = &tool.Env{Workspace: ws, Host: host, Settings: tool.Settings{Mode: protocol.ModeDefault}, Capabilities: protocol.ClientCapabilities{Todo: true}}
	f.reg = tool.NewRegistry(append([]tool.Tool{echo, failing}, tools...)...)
	f.lim = compose.LimitsFor(&f.env.Settings)
	return f
}

func (f *fixture) runner() *compose.Runner {
	parent := &tool.Call{ID: "7", Name: "compose", RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: f.sess, Env: f.env}
	return &compose.Runner{Registry: f.reg, Parent: parent, Limits: f.lim, Catalog: compose.NewCatalog(f.reg, f.env)}
}

func (f *fixture) run(src string) *compose.Outcome {
	f.t.Helper()
	return f.runner().Run(context.Background(), src)
}

// ok runs a program that must succeed and returns its value's text.
func (f *fixture) ok(src string) string {
	f.t.Helper()
	out := f.run(src)
	if out.Err != nil {
		f.t.Fatalf("program failed: %v\nlogs: %q", out.Err, out.Logs)
	}
	return out.Value.Text
}
