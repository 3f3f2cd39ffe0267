package daemon_test

// Sub-agents over the wire: the test client serves model/chat from a
// script, as the editor's language model would, and shows activity.

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

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// script answers the n-th model turn (0-based) of the child whose task is
// task; a nil result ends the child with "done".
type script func(task string, n int) *protocol.ModelChatResult

// scriptedModel is the client's language model for the tests.
type scriptedModel struct {
	script script
	mu     sync.Mutex
	chats  map[string][]protocol.ModelChatParams
}

func (m *scriptedModel) chat(_ context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
	first := p.Messages[0].Content
	task := first[strings.LastIndex(first, "Task:\n")+len("Task:\n"):]
	n := 0
	for _, msg := range p.Messages {
		if msg.Role == protocol.RoleAssistant {
			n++
		}
	}
	m.mu.Lock()
	m.chats[task] = append(m.chats[task], p)
	m.mu.Unlock()
	if r := m.script(task, n); r != nil {
		return *r, nil
	}
	return protocol.ModelChatResult{Content: task + ": done", StopReason: protocol.StopEnd}, nil
}

// turns returns the model/chat requests a child made.
func (m *scriptedModel) turns(task string) []protocol.ModelChatParams {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]protocol.ModelChatParams(nil), m.chats[task]...)
}

// told is what the child's model was told in answer to its n-th turn's
// first tool call.
func (m *scriptedModel) told(t *testing.T, task string, n int) string {
	t.Helper()
	turns := m.turns(task)
	if len(turns) <= n+1 {
		t.Fatalf("%s took %d turns; no answer to turn %d", task, len(turns), n)
	}
	msgs := turns[n+1].Messages
	for _, msg := range msgs {
		if msg.Role == protocol.RoleTool && msg.ToolCallID == msgs[2*n+1].ToolCalls[0].ID {
			return msg.Content
		}
	}
	t.Fatalf("no tool result for turn %d of %s", n, task)
	return ""
}

func toolCall(name string, args any) *protocol.ModelChatResult {
	raw, _ := json.Marshal(args)
	return &protocol.ModelChatResult{
		ToolCalls:  []protocol.ChatToolCall{{ID: fmt.Sprintf("m-%s", name), Name: name, Arguments: raw}},
		StopReason: protocol.StopToolCalls,
	}
}

// agentFixture serves a daemon whose client has a scripted model.
type agentFixture struct {
	*fixture
	model *scriptedModel
	gate  *tooltest.Blocker
}

func startAgent(t *testing.T, s script, settings *protocol.Settings) *agentFixture {
	t.Helper()
	m := &scriptedModel{script: s, chats: map[string][]protocol.ModelChatParams{}}
	g := tooltest.NewBlocker()
	reg := tool.NewRegistry(tools.ReadFile, tools.ListDir, tools.Glob, g.Tool(), tools.Todo,
		tools.WriteFile, tools.EditFile, tools.Agent)
	f := start(t, fixtureOptions{registry: reg, chat: m.chat})
	var res protocol.InitializeResult
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true, AskUser: true, Todo: true, Models: true}, settings), &res)
	return &agentFixture{fixture: f, model: m, gate: g}
}

func (f *agentFixture) agent(requestID, mode, prompt string) protocol.ToolCallResult {
	f.t.Helper()
	return f.toolIn(requestID, "agent", map[string]string{"mode": mode, "prompt": prompt})
}

// activity is every tools/activity notification so far.
func (f *agentFixture) activity() []protocol.Activity {
	var out []protocol.Activity
	for _, n := range f.client.Notifications() {
		if n.Method == protocol.MethodToolsActivity {
			var a protocol.Activity
			if err := json.Unmarshal(n.Params, &a); err != nil {
				f.t.Fatal(err)
			}
			out = append(out, a)
		}
	}
	return out
}

// lastPlan is the last todo/changed notification's plan.
func (f *agentFixture) lastPlan() []protocol.TodoItem {
	var p protocol.TodoChangedParams
	for _, n := range f.client.Notifications() {
		if n.Method == protocol.MethodTodoChanged {
			p = protocol.TodoChangedParams{}
			if err := json.Unmarshal(n.Params, &p); err != nil {
				f.t.Fatal(err)
			}
		}
	}
	return p.Items
}

func TestAgentOfferedOnlyWithAModel(t *testing.T) {
	f := start(t, fixtureOptions{registry: tool.NewRegistry(tools.ReadFile, tools.Agent)})
	res := f.initialize() // no models capability
	for _, ti := range res.Tools {
		if ti.Name == "agent" {
			t.Fatal("agent is offered to a client that serves no model")
		}
	}
	if r := f.tool("agent", map[string]string{"mode": "inspect", "prompt": "x"}); !r.IsError || !strings.Contains(r.Content, "not available here") {
		t.Errorf("agent without a model: %+v", r)
	}
}

func TestInitializeRejectsANegativeAgentMaxTurns(t *testing.T) {
	f := start(t)
	e := f.callErr(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Models: true}, &protocol.Settings{AgentMaxTurns: -1}))
	if e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, "settings.agentMaxTurns") {
		t.Errorf("got %v", e)
	}
}

// Two inspect children called at once both have their tool call running
// before either is released: they overlap. Were they run one after the
// other, the second would never start and the test would fail.
func TestAgentInspectChildrenOverlap(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		if n == 0 {
			return toolCall("grep", map[string]string{"pattern": task})
		}
		return nil
	}, nil)
	ctx := waitCtx(t)
	var pending []interface {
		Wait(context.Context) (json.RawMessage, error)
	}
	for _, task := range []string{"left", "right"} {
		p, err := f.client.Go(ctx, "agent-"+task, protocol.MethodToolsCall, map[string]any{
			"name": "agent", "requestId": "r1", "arguments": map[string]string{"mode": "inspect", "prompt": task}})
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, p)
	}
	seen := map[string]bool{}
	for len(seen) < 2 {
		select {
		case tag := <-f.gate.Started:
			seen[tag] = true
		case <-ctx.Done():
			t.Fatalf("only %v started: the inspect children did not run at the same time", seen)
		}
	}
	close(f.gate.Release)
	for _, p := range pending {
		raw, err := p.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var res protocol.ToolCallResult
		json.Unmarshal(raw, &res)
		if res.IsError || !strings.Contains(res.Content, ": done") {
			t.Errorf("child: %+v", res)
		}
	}
}

// An inspect child has no write tool, and a forged call to one is refused
// (and shown as refused) without touching the disk.
func TestAgentInspectChildCannotWrite(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		if n == 0 {
			return toolCall("write_file", map[string]string{"path": "forged.txt", "content": "x"})
		}
		return nil
	}, nil)
	res := f.agent("r1", "inspect", "forge")
	if res.IsError {
		t.Fatalf("agent: %s", res.Content)
	}
	var offered []string
	for _, ct := range f.model.turns("forge")[0].Tools {
		offered = append(offered, ct.Name)
	}
	slices.Sort(offered)
	if !slices.Equal(offered, []string{"glob", "grep", "list_dir", "read_file"}) {
		t.Errorf("an inspect child was offered %v", offered)
	}
	if told := f.model.told(t, "forge", 0); !strings.Contains(told, "write_file is not one of your tools, so it did not run") {
		t.Errorf("the forged call was answered %q", told)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "forged.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the forged write happened: %v", err)
	}
	var refused bool
	for _, a := range f.activity() {
		refused = refused || (a.Tool == "write_file" && a.Status == protocol.ActivityRefused)
	}
	if !refused {
		t.Errorf("the forged call is not shown refused: %+v", f.activity())
	}
}

// What a child read never licenses its parent's edit.
func TestAgentReadsDoNotLicenseTheParentsEdits(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		if n == 0 {
			return toolCall("read_file", map[string]string{"path": "c.txt"})
		}
		return nil
	}, nil)
	f.write("c.txt", "gamma\n")
	if res := f.agent("r1", "inspect", "read c"); res.IsError || !strings.Contains(res.Content, "Files it read: c.txt") {
		t.Fatalf("agent: %s", res.Content)
	}
	res := f.tool("edit_file", map[string]string{"path": "c.txt", "old_string": "gamma", "new_string": "GAMMA"})
	if !res.IsError || !strings.Contains(res.Content, "read c.txt with read_file before") {
		t.Errorf("the parent edited on its child's read: %+v", res)
	}
}

// A work child's edit lands in the parent request's checkpoint: one undo
// puts back the parent's change and the child's.
func TestAgentWorkChildUndoneWithItsParent(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		switch n {
		case 0:
			return toolCall("read_file", map[string]string{"path": "b.txt"})
		case 1:
			return toolCall("edit_file", map[string]string{"path": "b.txt", "old_string": "beta", "new_string": "BETA"})
		}
		return nil
	}, nil)
	f.write("a.txt", "alpha\n")
	f.write("b.txt", "beta\n")
	f.toolIn("r7", "read_file", map[string]string{"path": "a.txt"})
	if r := f.toolIn("r7", "edit_file", map[string]string{"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}); r.IsError {
		t.Fatal(r.Content)
	}
	res := f.agent("r7", "work", "shout b")
	if res.IsError || !strings.Contains(res.Content, "- b.txt (+1 \u22121)") {
		t.Fatalf("agent: %s", res.Content)
	}
	var list protocol.UndoListResult
	f.call(protocol.MethodUndoList, struct{}{}, &list)
	if len(list.Checkpoints) != 1 || list.Checkpoints[0].RequestID != "r7" || len(list.Checkpoints[0].Files) != 2 {
		t.Fatalf("checkpoints: %+v", list.Checkpoints)
	}
	var undone protocol.UndoResult
	f.call(protocol.MethodUndoUndo, protocol.UndoParams{}, &undone)
	if len(undone.Restored) != 2 || len(undone.Conflicts) != 0 {
		t.Errorf("undo: %+v", undone)
	}
	for name, want := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if got, _ := os.ReadFile(filepath.Join(f.dir, name)); string(got) != want {
			t.Errorf("after undo %s holds %q, want %q", name, got, want)
		}
	}
}

// A work child cannot start a sub-agent: agent is not among its tools and
// a forged call is refused.
func TestAgentDepthTwoRefused(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		if task == "outer" && n == 0 {
			return toolCall("agent", map[string]string{"mode": "inspect", "prompt": "inner"})
		}
		return nil
	}, nil)
	if res := f.agent("r1", "work", "outer"); res.IsError {
		t.Fatal(res.Content)
	}
	for _, ct := range f.model.turns("outer")[0].Tools {
		if ct.Name == "agent" {
			t.Error("a work child was offered agent")
		}
	}
	if told := f.model.told(t, "outer", 0); !strings.Contains(told, "agent is not one of your tools") {
		t.Errorf("the nested call was answered %q", told)
	}
	if n := len(f.model.turns("inner")); n != 0 {
		t.Errorf("a grandchild took %d turns", n)
	}
}

// A child that loops is stopped at the turn limit of the settings, and the
// result says so.
func TestAgentTurnLimitEndsALoopingChild(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		return toolCall("list_dir", map[string]any{"path": fmt.Sprintf("d%d", n%2)})
	}, &protocol.Settings{AgentMaxTurns: 3})
	os.Mkdir(filepath.Join(f.dir, "d0"), 0o755)
	os.Mkdir(filepath.Join(f.dir, "d1"), 0o755)
	res := f.agent("r1", "inspect", "loop")
	if !res.IsError || !strings.Contains(res.Content, "did not finish: it reached the turn limit: 3 model turns (the setting agentMaxTurns)") {
		t.Errorf("result: %+v", res)
	}
	if n := len(f.model.turns("loop")); n != 3 {
		t.Errorf("the child took %d turns, want 3", n)
	}
}

// Cancelling the agent call while its child's tool runs stops the tool;
// when the reply comes, no call is running or reported running.
func TestAgentCancelLeavesNoRunningTool(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		return toolCall("grep", map[string]string{"pattern": "forever"})
	}, nil)
	ctx := waitCtx(t)
	p, err := f.client.Go(ctx, "agent-cancel", protocol.MethodToolsCall, map[string]any{
		"name": "agent", "requestId": "r1", "arguments": map[string]string{"mode": "inspect", "prompt": "block"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.gate.Started:
	case <-ctx.Done():
		t.Fatal("the child's tool never started")
	}
	if err := p.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var res protocol.ToolCallResult
	json.Unmarshal(raw, &res)
	if !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Errorf("result: %+v", res)
	}
	running, _ := f.gate.Counts()
	if running != 0 {
		t.Errorf("%d tool calls still running after the reply", running)
	}
	last := map[string]protocol.ActivityStatus{}
	for _, a := range f.activity() {
		last[a.CallID] = a.Status
	}
	if len(last) != 2 {
		t.Errorf("activity of %d calls, want the agent call and its child's: %v", len(last), last)
	}
	for id, st := range last {
		if st == protocol.ActivityRunning {
			t.Errorf("call %s is still shown running", id)
		}
	}
}

// The plan carries the activity of the step in progress: the agent call
// under its JSON-RPC id, its child's call beneath it; tools/result shows a
// call's result again.
func TestAgentActivityJoinsThePlan(t *testing.T) {
	f := startAgent(t, func(task string, n int) *protocol.ModelChatResult {
		if n == 0 {
			return toolCall("read_file", map[string]string{"path": "a.txt"})
		}
		return nil
	}, nil)
	f.write("a.txt", "alpha\n")
	f.tool("todo", map[string]any{"items": []map[string]string{{"text": "Explore", "status": "in_progress"}}})
	ctx := waitCtx(t)
	p, err := f.client.Go(ctx, "agent-42", protocol.MethodToolsCall, map[string]any{
		"name": "agent", "requestId": "r1", "arguments": map[string]string{"mode": "inspect", "prompt": "explore", "description": "look around"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	plan := f.lastPlan()
	if len(plan) != 1 || len(plan[0].Activity) != 2 {
		t.Fatalf("plan: %+v", plan)
	}
	parent, child := plan[0].Activity[0], plan[0].Activity[1]
	if parent.CallID != "agent-42" || parent.Tool != "agent" || parent.Title != "Sub-agent (inspect): look around" || parent.Status != protocol.ActivityOK {
		t.Errorf("the agent call: %+v", parent)
	}
	if child.ParentCallID != "agent-42" || child.Tool != "read_file" || child.Status != protocol.ActivityOK || child.RequestID != "r1" {
		t.Errorf("the child's call: %+v", child)
	}
	var kept protocol.ToolResultResult
	f.call(protocol.MethodToolsResult, protocol.ToolResultParams{CallID: child.CallID}, &kept)
	if kept.Tool != "read_file" || !strings.Contains(kept.Content, "1\talpha") {
		t.Errorf("tools/result: %+v", kept)
	}
	if e := f.callErr(protocol.MethodToolsResult, protocol.ToolResultParams{CallID: "nope"}); !strings.Contains(e.Message, "no result is kept") {
		t.Errorf("an unknown call: %v", e)
	}
}
