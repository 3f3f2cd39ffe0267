package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/agent"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wait bounds every wait, so a bug fails instead of hanging; nothing is
// asserted about speed.
const wait = 20 * time.Second

// model is a scripted model: turn answers the n-th turn (0-based) of the
// child whose task is the given text.
type model func(ctx context.Context, task string, n int, p protocol.ModelChatParams) (protocol.ModelChatResult, error)

// host is the client: it approves everything, shows activity, and answers
// model turns from its script.
type host struct {
	tool.NoHost
	model model

	mu       sync.Mutex
	chats    []protocol.ModelChatParams
	activity []protocol.Activity
	plans    [][]protocol.TodoItem
}

func (h *host) Approve(context.Context, protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	return protocol.ApprovalRequestResult{Answer: protocol.AnswerYes}, nil
}

func (h *host) Activity(_ context.Context, a protocol.Activity) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.activity = append(h.activity, a)
}

func (h *host) PlanChanged(_ context.Context, items []protocol.TodoItem) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.plans = append(h.plans, items)
}

func (h *host) Chat(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
	h.mu.Lock()
	h.chats = append(h.chats, p)
	h.mu.Unlock()
	n := 0
	for _, m := range p.Messages {
		if m.Role == protocol.RoleAssistant {
			n++
		}
	}
	task := p.Messages[0].Content
	task = task[strings.LastIndex(task, "Task:\n")+len("Task:\n"):]
	return h.model(ctx, task, n, p)
}

func (h *host) chatsOf(task string) []protocol.ModelChatParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []protocol.ModelChatParams
	for _, c := range h.chats {
		if strings.HasSuffix(c.Messages[0].Content, "Task:\n"+task) {
			out = append(out, c)
		}
	}
	return out
}

func (h *host) activities() []protocol.Activity {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]protocol.Activity(nil), h.activity...)
}

// calls makes a model turn that calls tools.
func calls(cs ...protocol.ChatToolCall) protocol.ModelChatResult {
	return protocol.ModelChatResult{ToolCalls: cs, StopReason: protocol.StopToolCalls}
}

func answer(text string) protocol.ModelChatResult {
	return protocol.ModelChatResult{Content: text, StopReason: protocol.StopEnd}
}

func tc(name string, args any) protocol.ChatToolCall {
	raw, _ := json.Marshal(args)
	return protocol.ChatToolCall{Name: name, Arguments: raw}
}

// fixture is a workspace, an Env whose client shows activity and serves
// the model, and the main agent's session.
type fixture struct {
	t    *testing.T
	dir  string
	env  *tool.Env
	host *host
	sess *tool.Session
	reg  *tool.Registry

	block *tooltest.Blocker
	seq   int
}

func newFixture(t *testing.T, m model) *fixture {
	t.Helper()
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &host{model: m}
	f := &fixture{t: t, dir: ws.Primary(), host: h, sess: tool.NewSession(),
		block: tooltest.NewBlocker()}
	f.env = &tool.Env{
		Workspace:    ws,
		Host:         h,
		Capabilities: protocol.ClientCapabilities{Todo: true, Models: true, AskUser: true},
		Settings:     tool.Settings{Mode: protocol.ModeDefault},
		Results:      tool.NewResults(),
	}
	f.reg = tool.NewRegistry(tools.ReadFile, tools.ListDir, tools.Glob, f.block.Tool(), tools.Todo, tools.AskUser,
		tools.WriteFile, tools.EditFile, tools.Shell, tools.Agent)
	return f
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, rel), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// call runs a tool as the main agent, in request r1.
func (f *fixture) call(ctx context.Context, name string, args any) tool.Result {
	raw, _ := json.Marshal(args)
	f.seq++
	return f.reg.Invoke(ctx, &tool.Call{Name: name, Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0),
		Session: f.sess, Env: f.env, ID: fmt.Sprint(f.seq)})
}

func (f *fixture) agent(ctx context.Context, mode agent.Mode, prompt string) tool.Result {
	return f.call(ctx, "agent", map[string]string{"mode": string(mode), "prompt": prompt})
}

func names(ts []protocol.ChatTool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func TestInspectChildReadsAndAnswers(t *testing.T) {
	f := newFixture(t, func(_ context.Context, task string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		switch n {
		case 0:
			return calls(tc("read_file", map[string]string{"path": "a.txt"})), nil
		}
		return answer("a.txt holds hello."), nil
	})
	f.write("a.txt", "hello\n")
	res := f.agent(context.Background(), agent.Inspect, "What is in a.txt?")
	if res.IsError {
		t.Fatalf("agent failed: %s", res.Content)
	}
	for _, want := range []string{"finished after 2 model turns and 1 tool call", "Its answer:\na.txt holds hello.", "Files it read: a.txt"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}
	chats := f.host.chatsOf("What is in a.txt?")
	if len(chats) != 2 {
		t.Fatalf("%d model turns, want 2", len(chats))
	}
	if got := names(chats[0].Tools); !slices.Equal(got, []string{"glob", "grep", "list_dir", "read_file"}) {
		t.Errorf("an inspect child is given %v", got)
	}
	last := chats[1].Messages[len(chats[1].Messages)-1]
	if last.Role != protocol.RoleTool || !strings.Contains(last.Content, "1\thello") || last.ToolCallID != chats[1].Messages[1].ToolCalls[0].ID {
		t.Errorf("the model was not given the read's result: %+v", last)
	}
	if chats[0].RequestID != "r1" {
		t.Errorf("model/chat names request %q, want the parent's r1", chats[0].RequestID)
	}
}

// A work child is given every tool but agent, with the child's own shell
// timeout in the description.
func TestWorkChildToolsAndShellTimeout(t *testing.T) {
	f := newFixture(t, func(context.Context, string, int, protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		return answer("nothing to do"), nil
	})
	if res := f.agent(context.Background(), agent.Work, "Do nothing."); res.IsError {
		t.Fatal(res.Content)
	}
	chats := f.host.chatsOf("Do nothing.")
	got := names(chats[0].Tools)
	want := []string{"ask_user", "edit_file", "glob", "grep", "list_dir", "read_file", "shell", "todo", "write_file"}
	if !slices.Equal(got, want) {
		t.Errorf("a work child is given %v, want %v", got, want)
	}
	for _, ct := range chats[0].Tools {
		if ct.Name == "shell" && !strings.Contains(ct.Description, "stopped after 5 minutes") {
			t.Errorf("the child's shell description does not give its 5 minute default: %s", ct.Description)
		}
	}
}

// A forged call to a tool an inspect child was not given is refused and
// reported as refused; nothing is written.
func TestInspectChildCannotWrite(t *testing.T) {
	f := newFixture(t, func(_ context.Context, _ string, n int, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		if n == 0 {
			return calls(tc("write_file", map[string]string{"path": "evil.txt", "content": "x"})), nil
		}
		return answer("I could not write."), nil
	})
	res := f.agent(context.Background(), agent.Inspect, "Write evil.txt.")
	if _, err := os.Stat(filepath.Join(f.dir, "evil.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an inspect child wrote a file: %v", err)
	}
	chats := f.host.chatsOf("Write evil.txt.")
	msg := chats[1].Messages[2]
	if !strings.Contains(msg.Content, "write_file is not one of your tools, so it did not run: as an inspect sub-agent you may use only") {
		t.Errorf("the child was told %q", msg.Content)
	}
	var refused bool
	for _, a := range f.host.activities() {
		if a.Tool == "write_file" && a.Status == protocol.ActivityRefused && a.ParentCallID == "1" {
			refused = true
		}
	}
	if !refused {
		t.Errorf("no refused activity for the forged call: %+v", f.host.activities())
	}
	if res.IsError {
		t.Errorf("the child finished, so the agent call is not an error: %s", res.Content)
	}
}

// The child's reads do not license the parent's edits, nor the parent's
// reads the child's.
func TestSessionsAreSeparate(t *testing.T) {
	f := newFixture(t, func(_ context.Context, task string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		switch {
		case task == "Read c.txt." && n == 0:
			return calls(tc("read_file", map[string]string{"path": "c.txt"})), nil
		case task == "Edit p.txt." && n == 0:
			return calls(tc("edit_file", map[string]string{"path": "p.txt", "old_string": "p", "new_string": "q"})), nil
		}
		return answer("done"), nil
	})
	f.write("c.txt", "c\n")
	f.write("p.txt", "p\n")
	if res := f.agent(context.Background(), agent.Inspect, "Read c.txt."); res.IsError {
		t.Fatal(res.Content)
	}
	res := f.call(context.Background(), "edit_file", map[string]string{"path": "c.txt", "old_string": "c", "new_string": "d"})
	if !res.IsError || !strings.Contains(res.Content, "read c.txt with read_file before") {
		t.Errorf("the parent edited a file only its child read: %s", res.Content)
	}
	if r := f.call(context.Background(), "read_file", map[string]string{"path": "p.txt"}); r.IsError {
		t.Fatal(r.Content)
	}
	if r := f.agent(context.Background(), agent.Work, "Edit p.txt."); r.IsError {
		t.Fatal(r.Content)
	}
	told := f.host.chatsOf("Edit p.txt.")[1].Messages[2].Content
	if !strings.Contains(told, "read p.txt with read_file before") || f.read("p.txt") != "p\n" {
		t.Errorf("the child edited a file only its parent read (told %q)", told)
	}
}

// Two inspect children run at once: each one's blocking call starts before
// either is released. Run one after the other, the second would never start.
func TestInspectChildrenRunConcurrently(t *testing.T) {
	f := newFixture(t, func(_ context.Context, task string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		if n == 0 {
			return calls(tc("grep", map[string]string{"pattern": task})), nil
		}
		return answer("found it"), nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	results := make(chan tool.Result, 2)
	var wg sync.WaitGroup
	for _, task := range []string{"A", "B"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(map[string]string{"mode": "inspect", "prompt": task})
			results <- f.reg.Invoke(ctx, &tool.Call{Name: "agent", Args: raw, RequestID: "r1", Session: f.sess, Env: f.env, ID: "call-" + task})
		}()
	}
	seen := map[string]bool{}
	for len(seen) < 2 {
		select {
		case tag := <-f.block.Started:
			seen[tag] = true
		case <-ctx.Done():
			t.Fatalf("only %v started: the inspect children did not run at the same time", seen)
		}
	}
	close(f.block.Release)
	wg.Wait()
	close(results)
	for r := range results {
		if r.IsError {
			t.Errorf("child failed: %s", r.Content)
		}
	}
}

// Work children of one request take turns; the second waits for the
// first's lock and makes no model turn until the first is done.
func TestWorkChildrenOfARequestRunOneAtATime(t *testing.T) {
	firstIn := make(chan struct{})
	releaseFirst := make(chan struct{})
	f := newFixture(t, func(_ context.Context, task string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		if task == "first" && n == 0 {
			close(firstIn)
			<-releaseFirst
		}
		return answer(task + " done"), nil
	})
	parent := &tool.Call{Name: "agent", RequestID: "r1", Session: f.sess, Env: f.env}
	done := make(chan tool.Result, 2)
	go func() { done <- f.agent(context.Background(), agent.Work, "first") }()
	<-firstIn
	go func() {
		raw, _ := json.Marshal(map[string]string{"mode": "work", "prompt": "second"})
		done <- f.reg.Invoke(context.Background(), &tool.Call{Name: "agent", Args: raw, RequestID: "r1", Session: f.sess, Env: f.env, ID: "second"})
	}()
	// The second child is waiting for the lock once two hold or want it.
	deadline := time.Now().Add(wait)
	for agent.WorkWaiters(parent) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second work child never reached the request's lock")
		}
		time.Sleep(time.Millisecond)
	}
	if n := len(f.host.chatsOf("second")); n != 0 {
		t.Fatalf("the second work child took %d model turns while the first was running", n)
	}
	// A work child of another request does not wait.
	raw, _ := json.Marshal(map[string]string{"mode": "work", "prompt": "other"})
	if r := f.reg.Invoke(context.Background(), &tool.Call{Name: "agent", Args: raw, RequestID: "r2", Session: f.sess, Env: f.env, ID: "other"}); r.IsError {
		t.Fatalf("a work child of another request: %s", r.Content)
	}
	close(releaseFirst)
	for range 2 {
		if r := <-done; r.IsError {
			t.Errorf("work child failed: %s", r.Content)
		}
	}
	if agent.WorkWaiters(parent) != 0 {
		t.Error("the request's lock was not released")
	}
}

// A sub-agent cannot start one: agent is not among its tools, a forged call
// is refused, and a direct run from a child's session is refused.
func TestDepthTwoRefused(t *testing.T) {
	f := newFixture(t, func(_ context.Context, task string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		if n == 0 {
			return calls(tc("agent", map[string]string{"mode": "inspect", "prompt": "nested"})), nil
		}
		return answer("could not nest"), nil
	})
	if r := f.agent(context.Background(), agent.Work, "Nest."); r.IsError {
		t.Fatal(r.Content)
	}
	chats := f.host.chatsOf("Nest.")
	if slices.Contains(names(chats[0].Tools), "agent") {
		t.Error("a work child was given agent")
	}
	if told := chats[1].Messages[2].Content; !strings.Contains(told, "agent is not one of your tools") {
		t.Errorf("the forged nested call was answered %q", told)
	}
	if len(f.host.chatsOf("nested")) != 0 {
		t.Error("a grandchild ran")
	}
	child := &tool.Call{Name: "agent", RequestID: "r1", Session: tool.NewChildSession(f.sess), Env: f.env, Registry: f.reg}
	if _, err := agent.Run(context.Background(), child, agent.Task{Prompt: "x", Mode: agent.Inspect}, agent.Options{}); !errors.Is(err, agent.ErrNested) {
		t.Errorf("Run from a child's session: %v, want ErrNested", err)
	}
}

// Each limit stops the child and is named in what comes back.
func TestLimitsAreNamed(t *testing.T) {
	looping := func(ctx context.Context, _ string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		return calls(tc("list_dir", map[string]any{"path": fmt.Sprintf("d%d", n%2)})), nil
	}
	tests := []struct {
		name  string
		model model
		opts  agent.Options
		turns int // settings.agentMaxTurns
		want  string
	}{
		{"turns from the setting", looping, agent.Options{}, 3, "did not finish: it reached the turn limit: 3 model turns (the setting agentMaxTurns)"},
		{"tokens", func(_ context.Context, _ string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
			r := calls(tc("read_file", map[string]any{"path": "big.txt", "offset": n + 1}))
			r.Usage, r.MaxInputTokens = &protocol.ChatUsage{InputTokens: 900, OutputTokens: 50}, 1000
			return r, nil
		}, agent.Options{}, 0, "did not finish: it reached the token limit: its conversation would take about"},
		{"wall time", func(ctx context.Context, _ string, _ int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
			<-ctx.Done()
			return protocol.ModelChatResult{}, ctx.Err()
		}, agent.Options{WallTime: time.Millisecond}, 0, "did not finish: it reached its wall time of 1ms"},
		{"model failure", func(context.Context, string, int, protocol.ModelChatParams) (protocol.ModelChatResult, error) {
			return protocol.ModelChatResult{}, errors.New("the user declined the model's consent prompt")
		}, agent.Options{}, 0, "did not finish: the model could not answer (the user declined the model's consent prompt)"},
		{"cut off", func(context.Context, string, int, protocol.ModelChatParams) (protocol.ModelChatResult, error) {
			return protocol.ModelChatResult{Content: "partial", StopReason: protocol.StopLength}, nil
		}, agent.Options{}, 0, "did not finish: its last answer was cut off at the model's output limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.model)
			f.env.Settings.AgentMaxTurns = tt.turns
			f.write("big.txt", strings.Repeat("a line of the big file\n", 400))
			os.Mkdir(filepath.Join(f.dir, "d0"), 0o755)
			os.Mkdir(filepath.Join(f.dir, "d1"), 0o755)
			parent := &tool.Call{Name: "agent", RequestID: "r1", Session: f.sess, Env: f.env, Registry: f.reg, ID: "1"}
			out, err := agent.Run(context.Background(), parent, agent.Task{Prompt: "loop", Mode: agent.Inspect}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if r := out.Report(); !strings.Contains(r, tt.want) {
				t.Errorf("report lacks %q:\n%s", tt.want, r)
			}
			if tt.turns > 0 && out.Turns != tt.turns {
				t.Errorf("%d turns, want %d", out.Turns, tt.turns)
			}
		})
	}
}

// The default turn limit comes from the settings' default.
func TestDefaultTurnLimit(t *testing.T) {
	f := newFixture(t, func(ctx context.Context, _ string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		return calls(tc("list_dir", map[string]any{"path": fmt.Sprintf("d%d", n%2)})), nil
	})
	os.Mkdir(filepath.Join(f.dir, "d0"), 0o755)
	os.Mkdir(filepath.Join(f.dir, "d1"), 0o755)
	res := f.agent(context.Background(), agent.Inspect, "Loop forever.")
	if !res.IsError || !strings.Contains(res.Content, fmt.Sprintf("turn limit: %d model turns", tool.DefaultAgentMaxTurns)) {
		t.Errorf("result: %s", res.Content)
	}
	if n := len(f.host.chatsOf("Loop forever.")); n != tool.DefaultAgentMaxTurns {
		t.Errorf("%d turns, want %d", n, tool.DefaultAgentMaxTurns)
	}
}

// Cancelling the parent's call in the middle of a child's tool call stops
// the tool, and no call is left running when the agent call returns.
func TestCancelStopsTheChildAndItsTools(t *testing.T) {
	f := newFixture(t, func(_ context.Context, _ string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		return calls(tc("grep", map[string]string{"pattern": "x"})), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result, 1)
	go func() { done <- f.agent(ctx, agent.Inspect, "Search.") }()
	select {
	case <-f.block.Started:
	case <-time.After(wait):
		t.Fatal("the child's tool never started")
	}
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "was cancelled") {
		t.Errorf("result: %s", res.Content)
	}
	running, returned := f.block.Counts()
	if running != 0 || returned != 1 {
		t.Errorf("after cancel: %d tool calls running, %d returned", running, returned)
	}
	last := map[string]protocol.ActivityStatus{}
	for _, a := range f.host.activities() {
		last[a.CallID] = a.Status
	}
	for id, st := range last {
		if st == protocol.ActivityRunning {
			t.Errorf("call %s is still reported running", id)
		}
	}
	if len(f.host.chatsOf("Search.")) != 1 {
		t.Errorf("the child took %d turns after its parent was cancelled", len(f.host.chatsOf("Search."))-1)
	}
}

// A client without a model gets no agent, and a run says why.
func TestNoModel(t *testing.T) {
	f := newFixture(t, nil)
	f.env.Capabilities.Models = false
	if res := f.agent(context.Background(), agent.Inspect, "x"); !res.IsError || !strings.Contains(res.Content, "agent is not available here") {
		t.Errorf("without capabilities.models: %s", res.Content)
	}
	f.env.Capabilities.Models = true
	f.env.Host = &noModel{}
	if res := f.agent(context.Background(), agent.Inspect, "x"); !res.IsError || !strings.Contains(res.Content, "no sub-agent ran: the editor serves no language model") {
		t.Errorf("with a host that serves none: %s", res.Content)
	}
}

type noModel struct{ tool.NoHost }

// The child's calls are activity under the agent call, attached to the
// parent's step in progress, and their results are kept.
func TestChildActivityJoinsThePlan(t *testing.T) {
	f := newFixture(t, func(_ context.Context, _ string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		if n == 0 {
			return calls(tc("read_file", map[string]string{"path": "a.txt"})), nil
		}
		return answer("ok"), nil
	})
	f.write("a.txt", "alpha\n")
	f.call(context.Background(), "todo", map[string]any{"items": []map[string]string{{"text": "Look", "status": "in_progress"}, {"text": "Fix", "status": "pending"}}})
	if r := f.agent(context.Background(), agent.Inspect, "Look at a.txt."); r.IsError {
		t.Fatal(r.Content)
	}
	plan := f.sess.Plan()
	acts := plan[0].Activity
	if len(acts) != 2 || len(plan[1].Activity) != 0 {
		t.Fatalf("the step in progress holds %+v", plan)
	}
	if acts[0].Tool != "agent" || acts[0].Status != protocol.ActivityOK || acts[0].Title != "Sub-agent (inspect): Look at a.txt." {
		t.Errorf("the agent call: %+v", acts[0])
	}
	if acts[1].Tool != "read_file" || acts[1].ParentCallID != acts[0].CallID || acts[1].Status != protocol.ActivityOK || acts[1].Title != "Reading a.txt" {
		t.Errorf("the child's call: %+v", acts[1])
	}
	kept, ok := f.env.Results.Get(acts[1].CallID)
	if !ok || !strings.Contains(kept.Content, "1\talpha") {
		t.Errorf("the child's result was not kept: %+v", kept)
	}
	// The plan sent last is the plan the session holds.
	f.host.mu.Lock()
	lastSent := f.host.plans[len(f.host.plans)-1]
	f.host.mu.Unlock()
	if len(lastSent[0].Activity) != 2 || lastSent[0].Activity[1].Status != protocol.ActivityOK {
		t.Errorf("the last plan sent: %+v", lastSent)
	}
	// The todo call itself is not activity of a step; a rewritten plan
	// keeps each step's activity by its text.
	f.call(context.Background(), "todo", map[string]any{"items": []map[string]string{{"text": "Look", "status": "done"}, {"text": "Fix", "status": "in_progress"}}})
	if plan := f.sess.Plan(); len(plan[0].Activity) != 2 || len(plan[1].Activity) != 0 {
		t.Errorf("after the plan was rewritten: %+v", plan)
	}
}

// A work child's edit goes through the parent's request: the same request
// id, so the same checkpoint.
func TestWorkChildEditsUnderTheParentsRequest(t *testing.T) {
	saved := &checkpoints{}
	f := newFixture(t, func(_ context.Context, _ string, n int, _ protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		switch n {
		case 0:
			return calls(tc("read_file", map[string]string{"path": "b.txt"})), nil
		case 1:
			return calls(tc("edit_file", map[string]string{"path": "b.txt", "old_string": "beta", "new_string": "BETA"})), nil
		}
		return answer("edited b.txt"), nil
	})
	f.env.Checkpoints = saved
	f.write("b.txt", "beta\n")
	res := f.agent(context.Background(), agent.Work, "Shout beta.")
	if res.IsError {
		t.Fatal(res.Content)
	}
	if f.read("b.txt") != "BETA\n" {
		t.Errorf("b.txt holds %q", f.read("b.txt"))
	}
	if !strings.Contains(res.Content, "Files it changed (one undo of this request puts them back with yours):\n- b.txt (+1 \u22121)") {
		t.Errorf("result: %s", res.Content)
	}
	if strings.Contains(res.Content, "Files it read") {
		t.Errorf("a changed file is listed as only read: %s", res.Content)
	}
	if got := saved.list(); !slices.Equal(got, []string{"r1 " + filepath.Join(f.dir, "b.txt")}) {
		t.Errorf("checkpoints saved: %v", got)
	}
}

type checkpoints struct {
	mu    sync.Mutex
	saved []string
}

func (c *checkpoints) Save(requestID, path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.saved = append(c.saved, requestID+" "+path)
	return nil
}

func (c *checkpoints) Wrote(string, string) error { return nil }

func (c *checkpoints) Abandon(string, string) error { return nil }

func (c *checkpoints) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.saved...)
}

// A preview runs nothing.
func TestPrepareRunsNoChild(t *testing.T) {
	f := newFixture(t, func(context.Context, string, int, protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		t.Error("a preview asked the model")
		return answer(""), nil
	})
	raw, _ := json.Marshal(map[string]string{"mode": "work", "prompt": "x"})
	res := f.reg.Invoke(context.Background(), &tool.Call{Name: "agent", Args: raw, RequestID: "r1", Session: f.sess, Env: f.env, Prepare: true})
	if res.IsError || res.Title != "Run a sub-agent (work)" {
		t.Errorf("preview: %+v", res)
	}
}
