package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// fakeHost records approval requests and answers them with answer.
type fakeHost struct {
	tool.NoHost
	answer   protocol.Answer
	content  *string
	hunks    []int
	requests []protocol.ApprovalRequestParams

	plans     [][]protocol.TodoItem
	askAnswer protocol.UserAskResult
	questions []protocol.UserAskParams
}

func (h *fakeHost) Approve(_ context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	h.requests = append(h.requests, req)
	return protocol.ApprovalRequestResult{Answer: h.answer, Content: h.content, Hunks: h.hunks}, nil
}

// PlanChanged records the plans shown.
func (h *fakeHost) PlanChanged(_ context.Context, items []protocol.TodoItem) {
	h.plans = append(h.plans, items)
}

// Ask answers questions from askAnswer.
func (h *fakeHost) Ask(_ context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	h.questions = append(h.questions, q)
	return h.askAnswer, nil
}

// harness is one workspace in a temp folder and one session over it.
type harness struct {
	t    *testing.T
	dir  string
	env  *tool.Env
	sess *tool.Session
	host *fakeHost
	reg  *tool.Registry
	// stores are the project's stores, when the test opened them.
	stores *stores.Stores
}

// newHarness makes a workspace whose changes are approved ("yes") unless
// the test changes host.answer or env.Mode.
func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	host := &fakeHost{answer: protocol.AnswerYes}
	h := &harness{t: t, dir: ws.Primary(), host: host, sess: tool.NewSession(), reg: Builtin()}
	h.env = &tool.Env{Workspace: ws, Host: host, Settings: tool.Settings{Mode: protocol.ModeDefault, RgPath: findRg()}}
	return h
}

func findRg() string {
	p, _ := search.LookRg("")
	return p
}

// call runs a tool with arguments given as a Go value.
func (h *harness) call(name string, args any) tool.Result {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.reg.Invoke(context.Background(), &tool.Call{Name: name, Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env})
}

// ok runs a call that must succeed and returns its text.
func (h *harness) ok(name string, args any) string {
	h.t.Helper()
	r := h.call(name, args)
	if r.IsError {
		h.t.Fatalf("%s(%v) failed: %s", name, args, r.Content)
	}
	return r.Content
}

// fail runs a call that must fail and returns its message.
func (h *harness) fail(name string, args any) string {
	h.t.Helper()
	r := h.call(name, args)
	if !r.IsError {
		h.t.Fatalf("%s(%v) succeeded, want an error; got: %s", name, args, r.Content)
	}
	return r.Content
}

// write puts a file in the workspace directly (not through a tool).
func (h *harness) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// read returns a workspace file's bytes.
func (h *harness) read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}
