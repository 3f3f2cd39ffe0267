package daemon_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

func TestToolsCallReadFile(t *testing.T) {
	f := start(t)
	f.initialize()
	f.write("a.txt", "one\ntwo\n")
	if r := f.tool("read_file", map[string]any{"path": "a.txt"}); r.IsError || r.Content != "1\tone\n2\ttwo\n" {
		t.Fatalf("read_file: %+v", r)
	}
}

// A tool's own failures are results the model reads, not protocol errors.
func TestToolFailuresAreResults(t *testing.T) {
	f := start(t)
	f.initialize()
	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"no_such_tool", nil, "there is no tool named"},
		{"read_file", map[string]any{"path": 5}, "invalid arguments for read_file"},
		{"read_file", map[string]any{"path": "missing.txt"}, "does not exist"},
	} {
		r := f.tool(tc.name, tc.args)
		if !r.IsError || !strings.Contains(r.Content, tc.want) {
			t.Errorf("%s(%v): %+v, want an error result containing %q", tc.name, tc.args, r, tc.want)
		}
	}
}

func TestBadToolParamsAreInvalidParams(t *testing.T) {
	f := start(t)
	f.initialize()
	for _, tc := range []struct {
		name   string
		params any
		want   string
	}{
		{"not an object", []int{1, 2}, "invalid params for tools/call"},
		{"name of the wrong type", map[string]any{"name": 7}, "invalid params for tools/call"},
		{"no name", map[string]any{"arguments": map[string]any{}}, `needs "name"`},
		{"negative budget", map[string]any{"name": "count", "tokenBudget": -1}, "tokenBudget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := f.callErr(protocol.MethodToolsCall, tc.params)
			if e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("%d %q, want InvalidParams containing %q", e.Code, e.Message, tc.want)
			}
		})
	}
	if f.tools.counted.Load() != 0 {
		t.Fatal("a call with bad params ran")
	}
}

// A quick call is answered while a slow one is still running.
func TestCallsRunConcurrently(t *testing.T) {
	f := start(t)
	f.initialize()
	f.write("a.txt", "a\n")
	ctx := waitCtx(t)
	slow, err := f.client.Go(ctx, "slow", protocol.MethodToolsCall, map[string]any{"name": "block", "arguments": map[string]any{"tag": "slow"}})
	if err != nil {
		t.Fatal(err)
	}
	<-f.tools.started
	if r := f.tool("read_file", map[string]any{"path": "a.txt"}); r.IsError {
		t.Fatalf("read_file while block runs: %+v", r)
	}
	if slow.Answered() {
		t.Fatal("the blocking call answered before it was cancelled")
	}
	if err := slow.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := slow.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCancelRequestStopsOnlyThatCall(t *testing.T) {
	f := start(t)
	f.initialize()
	ctx := waitCtx(t)
	var calls []*rpctest.Pending
	for _, tag := range []string{"a", "b"} {
		p, err := f.client.Go(ctx, "id-"+tag, protocol.MethodToolsCall, map[string]any{"name": "block", "arguments": map[string]any{"tag": tag}})
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, p)
		<-f.tools.started
	}
	if err := calls[0].Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := calls[0].Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var res protocol.ToolCallResult
	if err := json.Unmarshal(raw, &res); err != nil || !res.IsError || !strings.Contains(res.Content, "block a was cancelled") {
		t.Fatalf("cancelled call's reply: %s", raw)
	}
	// The other call is untouched until it is cancelled in turn.
	f.tool("count", nil)
	if calls[1].Answered() {
		t.Fatal("cancelling id-a also ended id-b")
	}
	// Cancelling an id that is not running is harmless.
	if err := f.client.Notify(ctx, protocol.MethodCancelRequest, map[string]any{"id": "no-such-id"}); err != nil {
		t.Fatal(err)
	}
	if err := f.client.Notify(ctx, protocol.MethodCancelRequest, map[string]any{"id": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := calls[1].Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := calls[1].Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestReusedIDOfARunningCallIsInvalid(t *testing.T) {
	f := start(t)
	f.initialize()
	ctx := waitCtx(t)
	if _, err := f.client.Go(ctx, "same", protocol.MethodToolsCall, map[string]any{"name": "block"}); err != nil {
		t.Fatal(err)
	}
	<-f.tools.started
	second, err := f.client.Go(ctx, "same", protocol.MethodToolsCall, map[string]any{"name": "count"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = second.Wait(ctx)
	if e, ok := err.(*jsonrpc2.Error); !ok || e.Code != jsonrpc2.InvalidRequest || !strings.Contains(e.Message, "already in use") {
		t.Fatalf("reused id: %v", err)
	}
	// The client's reply map held one entry per id; re-register for the first.
	first := f.client.Expect("same")
	if err := first.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// Replies to concurrent calls are whole frames, never interleaved.
func TestConcurrentRepliesDoNotInterleave(t *testing.T) {
	f := start(t)
	f.initialize()
	var sb strings.Builder
	for i := 0; sb.Len() < 60<<10; i++ {
		fmt.Fprintf(&sb, "line %d with some text to make it longer\n", i)
	}
	f.write("big.txt", sb.String())
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res protocol.ToolCallResult
			_, err := f.client.Call(waitCtx(t), protocol.MethodToolsCall, map[string]any{
				"name": "read_file", "arguments": map[string]any{"path": "big.txt"}, "requestId": "r", "session": fmt.Sprint(i),
			}, &res)
			if err == nil && (res.IsError || !strings.HasPrefix(res.Content, "1\tline 0 ")) {
				err = fmt.Errorf("result %.80q", res.Content)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestApprovalGoesToTheClient(t *testing.T) {
	for _, tc := range []struct {
		answer    protocol.Answer
		wantError string // "" for success
		written   bool
	}{
		{protocol.AnswerYes, "", true},
		{protocol.AnswerNo, "The user declined", false},
		{protocol.AnswerSkip, "skipped", false},
	} {
		t.Run(string(tc.answer), func(t *testing.T) {
			f := start(t)
			f.initialize()
			f.answer.Store(tc.answer)
			r := f.tool("create_file", map[string]any{"path": "new.txt", "content": "hello\n"})
			req := <-f.approvals
			if req.Tool != "create_file" || req.Kind != protocol.ApprovalEdit || req.RequestID != "r1" || !strings.Contains(req.Diff, "+hello") {
				t.Errorf("approval request = %+v", req)
			}
			if tc.wantError == "" && (r.IsError || !strings.Contains(r.Diff, "+hello")) {
				t.Errorf("approved create: %+v", r)
			}
			if tc.wantError != "" && (!r.IsError || !strings.Contains(r.Content, tc.wantError)) {
				t.Errorf("answer %s: %+v", tc.answer, r)
			}
			_, err := os.Stat(filepath.Join(f.dir, "new.txt"))
			if written := err == nil; written != tc.written {
				t.Errorf("file written = %v, want %v", written, tc.written)
			}
		})
	}
}

func TestNoApprovalCapabilityRefusesTheChange(t *testing.T) {
	f := start(t)
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{}, nil), nil)
	r := f.tool("create_file", map[string]any{"path": "new.txt", "content": "x"})
	if !r.IsError || !strings.Contains(r.Content, "cannot show approvals") {
		t.Fatalf("create without an approval capability: %+v", r)
	}
	if len(f.approvals) != 0 {
		t.Fatal("asked a client that cannot answer")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "new.txt")); err == nil {
		t.Fatal("the file was written without approval")
	}
}

// A call cancelled while its approval is open tells the client to close it.
func TestCancelWhileAwaitingApproval(t *testing.T) {
	f := start(t)
	f.initialize()
	f.answer.Store(protocol.Answer("wait"))
	ctx := waitCtx(t)
	p, err := f.client.Go(ctx, "edit", protocol.MethodToolsCall, map[string]any{"name": "create_file", "arguments": map[string]any{"path": "n.txt", "content": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	<-f.approvals
	if err := p.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "nothing was changed") {
		t.Fatalf("reply %s", raw)
	}
	f.tool("count", nil) // the cancel notification is written before this reply
	found := false
	for _, n := range f.client.Notifications() {
		if n.Method != protocol.MethodCancelRequest {
			continue
		}
		found = true
		// It names the approval by the id the daemon gave its call: a
		// number, as the daemon numbers its own calls.
		var p struct {
			ID *int32 `json:"id"`
		}
		if err := json.Unmarshal(n.Params, &p); err != nil || p.ID == nil || *p.ID < 1 {
			t.Errorf("$/cancelRequest %s does not name the approval's call (%v)", n.Params, err)
		}
	}
	if !found {
		t.Fatalf("the client was not told to close the approval; notifications: %+v", f.client.Notifications())
	}
	if _, err := os.Stat(filepath.Join(f.dir, "n.txt")); err == nil {
		t.Fatal("written after cancel")
	}
}

func TestAskAndNotifyReachTheClient(t *testing.T) {
	f := start(t)
	f.initialize()
	if r := f.tool("ask_test", nil); r.IsError || r.Content != "answer: b" {
		t.Fatalf("ask: %+v", r)
	}
	found := false
	for _, n := range f.client.Notifications() {
		found = found || n.Method == protocol.MethodTodoChanged
	}
	if !found {
		t.Fatal("no todo/changed notification")
	}
}

func TestPrepareHasNoSideEffects(t *testing.T) {
	f := start(t)
	f.initialize()
	var prep protocol.ToolPrepareResult
	f.call(protocol.MethodToolsPrepare, map[string]any{"name": "create_file", "arguments": map[string]any{"path": "p.txt", "content": "hi\n"}, "requestId": "r"}, &prep)
	if !prep.NeedsApproval || !strings.Contains(prep.Diff, "+hi") || prep.Title != "Create p.txt" {
		t.Errorf("prepare create_file = %+v", prep)
	}
	f.call(protocol.MethodToolsPrepare, map[string]any{"name": "count", "arguments": map[string]any{}, "requestId": "r"}, &prep)
	if prep.NeedsApproval || prep.Title == "" {
		t.Errorf("prepare count = %+v", prep)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "p.txt")); err == nil {
		t.Error("prepare wrote the file")
	}
	if len(f.approvals) != 0 {
		t.Error("prepare asked for approval")
	}
	if n := f.tools.counted.Load(); n != 0 {
		t.Errorf("prepare ran a read-only tool %d times", n)
	}
}

// A preview names the approval the call would need, so the editor can ask
// up front: a change inside the workspace, a read outside it; a read inside
// needs none.
func TestPrepareNamesTheApproval(t *testing.T) {
	f := start(t)
	f.initialize()
	var prep protocol.ToolPrepareResult
	f.call(protocol.MethodToolsPrepare, map[string]any{"name": "create_file", "arguments": map[string]any{"path": "p.txt", "content": "hi\n"}, "requestId": ""}, &prep)
	if a := prep.Approval; a == nil || a.Kind != protocol.ApprovalEdit || a.Title != "Create p.txt" || a.Diff != "" || a.Tool != "create_file" {
		t.Errorf("create_file approval = %+v", a)
	}
	outside := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prep = protocol.ToolPrepareResult{}
	f.call(protocol.MethodToolsPrepare, map[string]any{"name": "read_file", "arguments": map[string]any{"path": outside}, "requestId": ""}, &prep)
	if a := prep.Approval; !prep.NeedsApproval || a == nil || a.Kind != protocol.ApprovalOutside || a.Path != outside || !strings.HasPrefix(a.AlwaysScope, "read in ") {
		t.Errorf("read_file outside: %+v approval %+v", prep, a)
	}
	f.write("in.txt", "y\n")
	prep = protocol.ToolPrepareResult{}
	f.call(protocol.MethodToolsPrepare, map[string]any{"name": "read_file", "arguments": map[string]any{"path": "in.txt"}, "requestId": ""}, &prep)
	if prep.NeedsApproval || prep.Approval != nil {
		t.Errorf("read_file inside: %+v", prep)
	}
	if len(f.approvals) != 0 {
		t.Error("prepare asked for approval")
	}
}

// A client that did not say it shows plans is sent none.
func TestNoPlanForAClientWithoutTodo(t *testing.T) {
	f := start(t)
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true, AskUser: true}, nil), nil)
	if r := f.tool("ask_test", nil); r.IsError {
		t.Fatalf("ask: %+v", r)
	}
	f.tool("count", nil) // any notification is written before this reply
	for _, n := range f.client.Notifications() {
		if n.Method == protocol.MethodTodoChanged {
			t.Fatal("todo/changed sent to a client without the todo capability")
		}
	}
}

// web_fetch is read-only but asks per host: a preview runs it in preview
// mode, which names the approval the fetch would need and fetches nothing.
func TestPrepareOfAFetchNamesItsHostAndFetchesNothing(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	f := start(t, fixtureOptions{registry: tool.NewRegistry(tools.WebFetch)})
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true},
		&protocol.Settings{WebPrivateHosts: []string{"127.0.0.1/32"}}), nil)
	var prep protocol.ToolPrepareResult
	f.call(protocol.MethodToolsPrepare, map[string]any{"name": "web_fetch", "arguments": map[string]any{"url": srv.URL + "/page"}, "requestId": ""}, &prep)
	if a := prep.Approval; !prep.NeedsApproval || a == nil || a.Kind != protocol.ApprovalFetch || a.Host != "127.0.0.1" {
		t.Errorf("web_fetch prepare: %+v approval %+v", prep, a)
	}
	if hits.Load() != 0 || len(f.approvals) != 0 {
		t.Errorf("a preview fetched (%d requests) or asked (%d)", hits.Load(), len(f.approvals))
	}
}

// requests/turn gives the calls of one chat session one request, which
// holds their changes in one checkpoint; another session gets another.
func TestRequestsTurnGroupsASessionsCalls(t *testing.T) {
	f := start(t)
	f.initialize()
	turn := func(session string) string {
		t.Helper()
		var res protocol.TurnResult
		f.call(protocol.MethodRequestsTurn, protocol.TurnParams{Session: session}, &res)
		return res.RequestID
	}
	first := turn("session:chat-1")
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(first) {
		t.Fatalf("request id %q is not a random UUID", first)
	}
	a := f.toolIn(first, "create_file", map[string]any{"path": "a.txt", "content": "a"})
	second := turn("session:chat-1")
	b := f.toolIn(second, "create_file", map[string]any{"path": "b.txt", "content": "b"})
	other := turn("session:chat-2")
	if second != first || other == first {
		t.Fatalf("chat-1 got %s then %s; chat-2 got %s", first, second, other)
	}
	if a.IsError || b.IsError || a.Checkpoint == "" || a.Checkpoint != b.Checkpoint {
		t.Fatalf("two calls of one turn: %+v and %+v, want one checkpoint", a, b)
	}
	if e := f.callErr(protocol.MethodRequestsTurn, map[string]any{}); e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, "session") {
		t.Fatalf("requests/turn without a session: %v", e)
	}
}
