package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// Calls close together are one request; a pause longer than the gap, with
// nothing running, starts the next; overlapping calls never split.
func TestRequestIDsQuietGap(t *testing.T) {
	now := time.Unix(1000, 0)
	n := 0
	r := &requestIDs{turns: tool.NewTurns(time.Minute, func() time.Time { return now }, func() string { n++; return string(rune('a' + n - 1)) })}
	step := func(d time.Duration) { now = now.Add(d) }

	first := r.begin()
	r.end(first)
	step(59 * time.Second)
	if id := r.begin(); id != first {
		t.Errorf("a call within the gap got %s, want %s", id, first)
	}
	// A call that runs longer than the gap keeps the request for the
	// calls that start while it runs.
	step(5 * time.Minute)
	if id := r.begin(); id != first {
		t.Errorf("an overlapping call got %s, want %s", id, first)
	}
	r.end(first)
	r.end(first)
	step(61 * time.Second)
	second := r.begin()
	if second == first {
		t.Errorf("a call after a pause longer than the gap kept request %s", first)
	}
	r.end(second)
	if id := r.begin(); id != second {
		t.Errorf("the next call got %s, want %s", id, second)
	}
}

// bufConn is a lineConn whose replies land in a buffer.
func bufConn() (*lineConn, *bytes.Buffer, *bytes.Buffer) {
	var out, logs bytes.Buffer
	return &lineConn{out: &out, log: slog.New(slog.NewTextHandler(&logs, nil)), maxLine: 1 << 10, closed: make(chan struct{})}, &out, &logs
}

func TestParseLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		// ok: a message is passed on; else reply is the id and code of the
		// error response, or "" when the line is only logged.
		ok    bool
		reply string
		code  int64
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true, "", 0},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, "", 0},
		{"response", `{"jsonrpc":"2.0","id":"s-1","result":{"action":"accept"}}`, true, "", 0},
		{"error response", `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`, true, "", 0},
		{"blank", "   ", false, "", 0},
		{"not JSON", `hello`, false, "", 0},
		{"cut short, id first", `{"jsonrpc":"2.0","id":7,"method":"tools/ca`, false, "7", -32700},
		{"cut short, id last", `{"jsonrpc":"2.0","method":"x","id":`, false, "", 0},
		{"wrong version", `{"jsonrpc":"1.0","id":"v","method":"ping"}`, false, `"v"`, -32600},
		{"no version", `{"id":3,"method":"ping"}`, false, "3", -32600},
		{"neither", `{"jsonrpc":"2.0","id":4}`, false, "4", -32600},
		{"empty method", `{"jsonrpc":"2.0","id":5,"method":""}`, false, "5", -32600},
		{"method not a string", `{"jsonrpc":"2.0","id":6,"method":12}`, false, "6", -32600},
		{"params a string", `{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}`, false, "8", -32600},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, false, "", 0},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, false, "", 0},
		{"batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]`, false, "9", -32600},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"n"}]`, false, "", 0},
		{"a number", `42`, false, "", 0},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, false, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, out, logs := bufConn()
			msg := c.parse([]byte(tc.line), false)
			if (msg != nil) != tc.ok {
				t.Fatalf("message %v, want passed on: %v", msg, tc.ok)
			}
			if tc.reply == "" {
				if out.Len() > 0 {
					t.Errorf("unexpected reply %s", out.String())
				}
				if !tc.ok && strings.TrimSpace(tc.line) != "" && logs.Len() == 0 {
					t.Error("a skipped line was not logged")
				}
				return
			}
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct{ Code int64 }
			}
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("reply %q: %v", out.String(), err)
			}
			if r.JSONRPC != "2.0" || string(r.ID) != tc.reply || r.Error.Code != tc.code || !strings.HasSuffix(out.String(), "\n") {
				t.Errorf("reply %s, want id %s code %d", out.String(), tc.reply, tc.code)
			}
		})
	}
}

// An over-long line is read to its end and answered by the id in its
// first bytes; the lines after it are read as usual.
func TestReadLineTooLong(t *testing.T) {
	long := `{"id":1,"x":"` + strings.Repeat("a", 5000) + `"}`
	br := bufio.NewReaderSize(strings.NewReader(long+"\n"+`{"id":2}`+"\n"), 16)
	line, tooLong, err := readLine(br, 1000)
	if err != nil || !tooLong || len(line) > headBytes || !bytes.HasPrefix(line, []byte(`{"id":1`)) {
		t.Fatalf("first line: %d bytes, tooLong %v, err %v", len(line), tooLong, err)
	}
	c, out, _ := bufConn()
	c.parse(line, true)
	if !strings.Contains(out.String(), `"id":1`) || !strings.Contains(out.String(), "longer than") {
		t.Errorf("reply %s", out.String())
	}
	line, tooLong, err = readLine(br, 1000)
	if err != nil || tooLong || string(line) != `{"id":2}`+"\n" {
		t.Fatalf("second line %q, tooLong %v, err %v", line, tooLong, err)
	}
	if _, _, err = readLine(br, 1000); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}
}

// Read ends only when the input does; Close ends a waiting Read.
func TestLineConnReadsPastBadLines(t *testing.T) {
	in := io.NopCloser(strings.NewReader("junk\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	tr := &lineTransport{in: in, out: io.Discard, log: slog.New(slog.DiscardHandler)}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Read(context.Background())
	if err != nil || msg == nil {
		t.Fatalf("first message: %v %v", msg, err)
	}
	if _, err := conn.Read(context.Background()); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	tr = &lineTransport{in: pr, out: io.Discard, log: slog.New(slog.DiscardHandler)}
	conn, _ = tr.Connect(context.Background())
	done := make(chan error)
	go func() {
		_, err := conn.Read(context.Background())
		done <- err
	}()
	conn.Close()
	if err := <-done; err != io.EOF {
		t.Errorf("a Read waiting when the connection closed: %v", err)
	}
}

func TestRootPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	for _, tc := range []struct {
		uri, want string
		ok        bool
	}{
		{"file:///home/u/project", "/home/u/project", true},
		{"file:///home/u/my%20project", "/home/u/my project", true},
		{"file://localhost/srv/x", "/srv/x", true},
		{"file://server/share", "", false},
		{"https://example.com/x", "", false},
		{"file://", "", false},
		{"::not a uri", "", false},
	} {
		got, err := rootPath(tc.uri)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("rootPath(%q) = %q, %v; want %q ok %v", tc.uri, got, err, tc.want, tc.ok)
		}
	}
}

// A parked call not resumed in time is stopped and forgotten; one resumed
// in time is handed back once.
func TestParkedCallsExpire(t *testing.T) {
	p := newParked(time.Nanosecond)
	stopped := make(chan struct{})
	r := &run{id: "r1", cancel: func() { close(stopped) }}
	p.park(r, &need{key: "elicit-1"})
	<-stopped
	if got, _ := p.take("r1"); got != nil {
		t.Error("an expired call could still be resumed")
	}

	p = newParked(time.Hour)
	r = &run{id: "r2", cancel: func() {}}
	p.park(r, &need{key: "elicit-1"})
	if got, n := p.take("r2"); got != r || n.key != "elicit-1" {
		t.Errorf("take: %v %v", got, n)
	}
	if got, _ := p.take("r2"); got != nil {
		t.Error("a call was resumed twice")
	}

	var once sync.Once
	closed := make(chan struct{})
	p.park(&run{id: "r3", cancel: func() { once.Do(func() { close(closed) }) }}, &need{})
	p.closeAll()
	<-closed
}

// The approval prompt shows what the editor shows and offers the four
// answers; the answers map back, and the ways of not answering are errors
// that say how to allow the step.
// testHost is a host whose questions go to the client by elicitation, on
// a clock that moves only when the fake client takes its time.
func testHost(clock *fakeClock) *host {
	return &host{s: &server{o: Options{Approvals: RouteElicitation, InstantDecline: DefaultInstantDecline}, log: slog.New(slog.DiscardHandler), clock: clock.now}}
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestApprove(t *testing.T) {
	req := protocol.ApprovalRequestParams{Tool: "shell", Title: "Run make", Kind: protocol.ApprovalShell, Command: "make test && rm -rf build", AlwaysScope: "running make"}
	slow := 3 * time.Second // a person reading the question
	for _, tc := range []struct {
		name    string
		caps    *sdk.ClientCapabilities
		result  *sdk.ElicitResult
		took    time.Duration
		want    protocol.Answer
		wantErr []string
	}{
		{"yes", formCaps, &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, 0, protocol.AnswerYes, nil},
		{"always", formCaps, &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "always"}}, slow, protocol.AnswerAlways, nil},
		{"skip", formCaps, &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "skip"}}, slow, protocol.AnswerSkip, nil},
		{"no", formCaps, &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "no"}}, slow, protocol.AnswerNo, nil},
		{"accept without answer", formCaps, &sdk.ElicitResult{Action: "accept"}, slow, "", []string{"without an answer", "tether allow"}},
		{"declined by the user", formCaps, &sdk.ElicitResult{Action: "decline"}, slow, protocol.AnswerNo, nil},
		{"dismissed by the user", formCaps, &sdk.ElicitResult{Action: "cancel"}, slow, protocol.AnswerSkip, nil},
		{"declined unseen", formCaps, &sdk.ElicitResult{Action: "decline"}, 3 * time.Millisecond, "", []string{"the client declined without showing the question: answer it in the editor or in `tether approvals`", "3ms"}},
		{"dismissed unseen", formCaps, &sdk.ElicitResult{Action: "cancel"}, 0, "", []string{"declined without showing the question"}},
		{"url elicitation only", &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}}, nil, 0, "", []string{"offers no form elicitation", "tether allow"}},
		{"no elicitation", &sdk.ClientCapabilities{}, nil, 0, "", []string{"offers no form elicitation", "tether allow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1000, 0)}
			a := &fakeAsker{c: tc.caps, elicitResult: tc.result, clock: clock, takes: tc.took}
			got, err := testHost(clock).Approve(withAsker(context.Background(), a), req)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("answer %+v, want an error", got)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err %v, want one with %q", err, w)
					}
				}
				return
			}
			if err != nil || got.Answer != tc.want {
				t.Fatalf("answer %v, %v; want %s", got, err, tc.want)
			}
			p := a.elicited
			if !strings.Contains(p.Message, "make test && rm -rf build") {
				t.Errorf("the prompt does not show the full command: %q", p.Message)
			}
			schema, _ := json.Marshal(p.RequestedSchema)
			for _, w := range []string{`"enum":["yes","always","skip","no"]`, `"required":["answer"]`, `"Always: running make"`} {
				if !strings.Contains(string(schema), w) {
					t.Errorf("schema %s lacks %s", schema, w)
				}
			}
		})
	}
	if got := approvalMessage(protocol.ApprovalRequestParams{Tool: "web_fetch", Title: "Fetch", Kind: protocol.ApprovalFetch, Host: "example.com", AlwaysScope: "example.com"}); !strings.Contains(got, "Host: ` example.com `") {
		t.Errorf("a fetch prompt does not name the host: %q", got)
	}
}

// A command outside the sandbox, or with network access after web
// content, offers no "always": the form's answers leave it out, and the
// message says why the step is asked.
func TestApproveWithoutAlways(t *testing.T) {
	off := false
	req := protocol.ApprovalRequestParams{Tool: "shell", Title: "List the containers (run docker ps outside the sandbox): docker ps", Kind: protocol.ApprovalShell, Command: "docker ps", Sandbox: &off, Description: "List the containers"}
	clock := &fakeClock{t: time.Unix(1000, 0)}
	a := &fakeAsker{c: formCaps, elicitResult: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, clock: clock, takes: 3 * time.Second}
	if got, err := testHost(clock).Approve(withAsker(context.Background(), a), req); err != nil || got.Answer != protocol.AnswerYes {
		t.Fatalf("answer %v, %v", got, err)
	}
	schema, _ := json.Marshal(a.elicited.RequestedSchema)
	if !strings.Contains(string(schema), `"enum":["yes","skip","no"]`) || strings.Contains(string(schema), "always") {
		t.Errorf("the form offers always: %s", schema)
	}
	for _, w := range []string{"outside the sandbox: it runs with all of the user's rights", "List the containers", "asked every time"} {
		if !strings.Contains(a.elicited.Message, w) {
			t.Errorf("the message lacks %q: %q", w, a.elicited.Message)
		}
	}
	net := protocol.ApprovalRequestParams{Tool: "shell", Title: "Run curl with network access", Kind: protocol.ApprovalShell, Command: "curl x.test", Network: true, Untrusted: []string{"https://a.test/page"}}
	if msg := approvalMessage(net); !strings.Contains(msg, "with network access") || !strings.Contains(msg, "read content from outside first") || !strings.Contains(msg, "a\\.test/page") {
		t.Errorf("a network prompt after web content: %q", msg)
	}
}

func TestAsk(t *testing.T) {
	q := protocol.UserAskParams{Question: "Which?", Options: []string{"a", "b"}, AllowFreeText: true}
	for _, tc := range []struct {
		name    string
		result  *sdk.ElicitResult
		took    time.Duration
		want    protocol.UserAskResult
		wantErr string
	}{
		{"option", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "b"}}, 0, protocol.UserAskResult{Answer: "b"}, ""},
		{"own words", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "a", "own": " c "}}, 0, protocol.UserAskResult{Answer: "c"}, ""},
		{"not an option", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "z"}}, 0, protocol.UserAskResult{Cancelled: true}, ""},
		{"declined", &sdk.ElicitResult{Action: "decline"}, 5 * time.Second, protocol.UserAskResult{Cancelled: true}, ""},
		{"declined unseen", &sdk.ElicitResult{Action: "decline"}, 0, protocol.UserAskResult{}, "without showing the question"},
	} {
		clock := &fakeClock{}
		got, err := testHost(clock).Ask(withAsker(context.Background(), &fakeAsker{c: formCaps, elicitResult: tc.result, clock: clock, takes: tc.took}), q)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: %+v %v, want an error with %q", tc.name, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v", tc.name, got, err, tc.want)
		}
	}
	if _, err := testHost(&fakeClock{}).Ask(withAsker(context.Background(), &fakeAsker{c: &sdk.ClientCapabilities{}}), q); err != tool.ErrNobodyToAsk {
		t.Errorf("without elicitation: %v", err)
	}
}

var formCaps = &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}}

// fakeAsker answers an elicitation with elicitResult after takes on the
// fake clock.
type fakeAsker struct {
	c            *sdk.ClientCapabilities
	elicitResult *sdk.ElicitResult
	elicited     *sdk.ElicitParams
	clock        *fakeClock
	takes        time.Duration
}

func (f *fakeAsker) caps() *sdk.ClientCapabilities { return f.c }

func (f *fakeAsker) client() string { return "Fake Client" }

func (f *fakeAsker) elicit(_ context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	f.elicited = p
	if f.clock != nil {
		f.clock.t = f.clock.t.Add(f.takes)
	}
	return f.elicitResult, nil
}

func (f *fakeAsker) sample(context.Context, *sdk.CreateMessageWithToolsParams) (*sdk.CreateMessageWithToolsResult, error) {
	return &sdk.CreateMessageWithToolsResult{}, nil
}

// Tool results that follow each other go back in one user message; a
// model turn's text and tool calls come back apart.
func TestSamplingConversion(t *testing.T) {
	p, err := samplingParams(protocol.ModelChatParams{
		ModelHint: "haiku",
		Messages: []protocol.ChatMessage{
			{Role: protocol.RoleUser, Content: "go"},
			{Role: protocol.RoleAssistant, Content: "two calls", ToolCalls: []protocol.ChatToolCall{{ID: "1", Name: "a"}, {ID: "2", Name: "b", Arguments: json.RawMessage(`{"x":1}`)}}},
			{Role: protocol.RoleTool, ToolCallID: "1", Content: "r1"},
			{Role: protocol.RoleTool, ToolCallID: "2", Content: "r2"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxTokens != DefaultMaxTokens || p.ModelPreferences.Hints[0].Name != "haiku" || len(p.Messages) != 3 {
		t.Fatalf("params %+v", p)
	}
	if got := p.Messages[1].Content; len(got) != 3 {
		t.Errorf("assistant content %v: want its text and two tool uses", got)
	}
	if got := p.Messages[2]; got.Role != "user" || len(got.Content) != 2 {
		t.Errorf("tool results %+v: want both in one user message", got)
	}
	if _, err := samplingParams(protocol.ModelChatParams{Messages: []protocol.ChatMessage{{Role: "system"}}}); err == nil {
		t.Error("an unknown role was accepted")
	}
	if _, err := samplingParams(protocol.ModelChatParams{Messages: []protocol.ChatMessage{{Role: protocol.RoleAssistant, ToolCalls: []protocol.ChatToolCall{{ID: "1", Arguments: json.RawMessage(`[1]`)}}}}}); err == nil {
		t.Error("tool call arguments that are not an object were accepted")
	}

	for _, tc := range []struct {
		res  *sdk.CreateMessageWithToolsResult
		want protocol.StopReason
	}{
		{&sdk.CreateMessageWithToolsResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}, StopReason: "endTurn"}, protocol.StopEnd},
		{&sdk.CreateMessageWithToolsResult{Content: []sdk.Content{&sdk.TextContent{Text: "cut"}}, StopReason: "maxTokens"}, protocol.StopLength},
		{&sdk.CreateMessageWithToolsResult{Content: []sdk.Content{&sdk.ToolUseContent{ID: "9", Name: "grep"}}}, protocol.StopToolCalls},
	} {
		got, err := chatResult(tc.res)
		if err != nil || got.StopReason != tc.want || got.ToolCalls == nil {
			t.Errorf("%+v: %+v %v, want stop %s", tc.res, got, err, tc.want)
		}
	}
}

// The hints follow the registry's flags.
func TestAnnotations(t *testing.T) {
	for _, tc := range []struct {
		info                               protocol.ToolInfo
		readOnly, destructive, open, idemp bool
	}{
		{protocol.ToolInfo{Name: "read_file", Risk: protocol.RiskLow, ReadOnly: true}, true, false, false, true},
		{protocol.ToolInfo{Name: "edit_file", Risk: protocol.RiskHigh}, false, true, false, false},
		{protocol.ToolInfo{Name: "shell", Risk: protocol.RiskHigh}, false, true, true, false},
		{protocol.ToolInfo{Name: "shell_kill", Risk: protocol.RiskMedium}, false, true, false, false},
		{protocol.ToolInfo{Name: "web_fetch", Risk: protocol.RiskHigh, ReadOnly: true}, true, false, true, true},
		{protocol.ToolInfo{Name: "todo_like", Risk: protocol.RiskLow}, false, false, false, false},
	} {
		a := annotations(tc.info)
		if a.ReadOnlyHint != tc.readOnly || *a.DestructiveHint != tc.destructive || *a.OpenWorldHint != tc.open || a.IdempotentHint != tc.idemp {
			t.Errorf("%s: %+v (destructive %v, open %v)", tc.info.Name, a, *a.DestructiveHint, *a.OpenWorldHint)
		}
	}
}

// A result written around as it is reads back as the SDK's own encoding
// of the message.
func TestResultLine(t *testing.T) {
	for _, id := range []any{"s-1", float64(42)} {
		jid, err := jsonrpc.MakeID(id)
		if err != nil {
			t.Fatal(err)
		}
		msg := &jsonrpc.Response{ID: jid, Result: json.RawMessage(`{"content":[{"type":"text","text":"a\nb <&>"}]}`)}
		line, ok := resultLine(msg)
		if !ok || !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
			t.Fatalf("line %q", line)
		}
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s\nwant %s", line, want)
		}
	}
	if _, ok := resultLine(&jsonrpc.Response{Error: errors.New("x")}); ok {
		t.Error("an error response took the result path")
	}
	if _, ok := resultLine(&jsonrpc.Request{Method: "ping"}); ok {
		t.Error("a request took the result path")
	}
}

// tether mcp makes its environment from its settings as the daemon makes
// its own from initialize's (its tests check the same).
func TestMCPMakesTheEnvEveryFrontEndMakes(t *testing.T) {
	isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	set := tooltest.EverySetting(exe)
	s, err := newServer(Options{Registry: tools.Builtin(), Workspaces: []string{t.TempDir()}, Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	env, _, err := s.env(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tooltest.CheckEnv(t, env, set)
	if env.Jobs == nil || env.Jobs != s.jobs {
		t.Error("the env does not run background jobs in the session's job manager")
	}
}

func TestMCPRefusesMalformedSettings(t *testing.T) {
	isolate(t)
	_, err := newServer(Options{Registry: tools.Builtin(), Workspaces: []string{t.TempDir()}, Settings: protocol.Settings{ComposeMaxCalls: -1}})
	if err == nil || !strings.Contains(err.Error(), "settings.composeMaxCalls is -1") {
		t.Fatalf("error %v, want one naming settings.composeMaxCalls", err)
	}
}
