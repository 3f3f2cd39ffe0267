package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// isolate points the XDG folders at a test's own, so stores and job logs
// never touch the user's.
func isolate(t *testing.T) {
	home := t.TempDir()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
}

// serveInProcess runs Serve on pipes and connects client to it. The
// returned stop closes the client and waits for Serve to return.
func serveInProcess(t *testing.T, o Options, client *sdk.Client, version string) (*sdk.ClientSession, func() error) {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), sr, sw, o)
		sw.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	return cs, func() error {
		cs.Close()
		return <-served
	}
}

// chatProbe is a tool that asks the client's model for one turn, as the
// agent tool does, and returns what the model said.
var chatProbe = tool.New(tool.Def[struct {
	Prompt string `json:"prompt"`
}]{
	Name:       "chat_probe",
	Doc:        "Asks the client's model one question.",
	Risk:       protocol.RiskLow,
	Permission: "auto",
	ReadOnly:   true,
	Run: func(ctx context.Context, c *tool.Call, a struct {
		Prompt string `json:"prompt"`
	}) (tool.Result, error) {
		res, err := c.Host().Chat(ctx, protocol.ModelChatParams{
			RequestID: c.RequestID,
			Messages: []protocol.ChatMessage{
				{Role: protocol.RoleUser, Content: a.Prompt},
				{Role: protocol.RoleAssistant, ToolCalls: []protocol.ChatToolCall{{ID: "t1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}},
				{Role: protocol.RoleTool, ToolCallID: "t1", Content: "file a"},
			},
			Tools:     []protocol.ChatTool{{Name: "read_file", Description: "reads", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			MaxTokens: 100,
		})
		if err != nil {
			return tool.Failf("chat: %v", err), nil
		}
		calls, _ := json.Marshal(res.ToolCalls)
		return tool.Text(string(res.StopReason) + " | " + res.Content + " | " + string(calls)), nil
	},
})

// Host.Chat goes to the client as sampling/createMessage, in both
// protocol generations, and the session leaves nothing running.
func TestChatThroughSampling(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("protocol "+version, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			isolate(t)
			var mu sync.Mutex
			var seen *sdk.CreateMessageWithToolsParams
			client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
				CreateMessageWithToolsHandler: func(_ context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
					mu.Lock()
					seen = req.Params
					mu.Unlock()
					return &sdk.CreateMessageWithToolsResult{
						Role:       "assistant",
						Model:      "test-model",
						StopReason: "toolUse",
						Content: []sdk.Content{
							&sdk.TextContent{Text: "let me look"},
							&sdk.ToolUseContent{ID: "t2", Name: "grep", Input: map[string]any{"pattern": "x"}},
						},
					}, nil
				},
			})
			reg := tool.NewRegistry(chatProbe)
			cs, stop := serveInProcess(t, Options{Registry: reg, Workspaces: []string{t.TempDir()}}, client, version)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chat_probe", Arguments: map[string]any{"prompt": "hello"}})
			if err != nil {
				t.Fatal(err)
			}
			got := text(res)
			if res.IsError || got != `toolCalls | let me look | [{"id":"t2","name":"grep","arguments":{"pattern":"x"}}]` {
				t.Errorf("result %q", got)
			}
			mu.Lock()
			p := seen
			mu.Unlock()
			if p == nil {
				t.Fatal("no sampling request reached the client")
			}
			if p.MaxTokens != 100 || len(p.Tools) != 1 || p.Tools[0].Name != "read_file" || len(p.Messages) != 3 {
				t.Fatalf("sampling request %+v", p)
			}
			if use, ok := p.Messages[1].Content[0].(*sdk.ToolUseContent); !ok || use.ID != "t1" || use.Input["path"] != "a" {
				t.Errorf("assistant message %+v", p.Messages[1].Content)
			}
			if r, ok := p.Messages[2].Content[0].(*sdk.ToolResultContent); !ok || p.Messages[2].Role != "user" || r.ToolUseID != "t1" {
				t.Errorf("tool result message %+v", p.Messages[2])
			}
			if err := stop(); err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
}

// A client without sampling gets ErrNoModel, which the tool reports.
func TestChatWithoutSampling(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	isolate(t)
	cs, stop := serveInProcess(t, Options{Registry: tool.NewRegistry(chatProbe), Workspaces: []string{t.TempDir()}},
		sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil), "2025-11-25")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chat_probe", Arguments: map[string]any{"prompt": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), tool.ErrNoModel.Error()) {
		t.Errorf("result %q", text(res))
	}
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// A session that ran tools, a background job among them, leaves no
// goroutine behind once the client is gone.
func TestServeLeavesNothingRunning(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	isolate(t)
	ws := t.TempDir()
	cs, stop := serveInProcess(t, Options{Registry: tools.Builtin(), Workspaces: []string{ws}, Settings: protocol.Settings{PermissionMode: protocol.ModeBypass}},
		sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil), "2025-11-25")
	pid := 0
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "a.txt", "content": "a\n"}},
		{"read_file", map[string]any{"path": "a.txt"}},
		{"shell", map[string]any{"command": "sleep 60", "background": true}},
	} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.name, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.name, err, text(res))
		}
		if m := pidRE.FindStringSubmatch(text(res)); m != nil {
			pid, _ = strconv.Atoi(m[1])
		}
	}
	if pid == 0 {
		t.Fatal("the background job reported no pid")
	}
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	// The job died with the session.
	if !processGone(pid) {
		t.Errorf("background job %d outlived the session", pid)
		killProcess(pid)
	}
}

var pidRE = regexp.MustCompile(`\(pid (\d+)\)`)

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// web_fetch's prompt is answered by the client's model through sampling:
// only the answer comes back, with the page's address.
func TestWebFetchPromptThroughSampling(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("The office opens at nine.\n"))
	}))
	defer srv.Close()
	var mu sync.Mutex
	var question string
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		CreateMessageWithToolsHandler: func(_ context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
			mu.Lock()
			if tc, ok := req.Params.Messages[0].Content[0].(*sdk.TextContent); ok {
				question = tc.Text
			}
			mu.Unlock()
			return &sdk.CreateMessageWithToolsResult{Role: "assistant", Model: "test-model", StopReason: "endTurn", Content: []sdk.Content{&sdk.TextContent{Text: "At nine."}}}, nil
		},
	})
	set := protocol.Settings{WebPrivateHosts: []string{"127.0.0.1"}, WebAllowedHosts: []string{"127.0.0.1"}}
	cs, stop := serveInProcess(t, Options{Registry: tool.NewRegistry(tools.WebFetch), Workspaces: []string{t.TempDir()}, Settings: set}, client, "")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "web_fetch", Arguments: map[string]any{"url": srv.URL + "/hours", "prompt": "When does it open?"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(res); res.IsError || !strings.Contains(got, "At nine.") || !strings.Contains(got, srv.URL+"/hours") || strings.Contains(got, "The office opens") {
		t.Errorf("result %q", got)
	}
	mu.Lock()
	if !strings.Contains(question, "The office opens at nine.") || !strings.Contains(question, "When does it open?") {
		t.Errorf("the model was asked %q", question)
	}
	mu.Unlock()
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// faulty stands in for a change whose disk fails below it: the registry
// turns the fault into a result whose status is failed.
var faulty = tool.New(tool.Def[struct{}]{
	Name:         "faulty_write",
	Doc:          "Fails the way a full disk does.",
	Risk:         protocol.RiskHigh,
	Permission:   "asks first",
	ChangesFiles: true,
	Run: func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
		return tool.Result{}, errors.New("write x.txt: no space left on device")
	},
})

// A fault below a change tool is reported as failed, in the structured
// content and the text alike, and never as written.
func TestFaultIsFailed(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	isolate(t)
	cs, stop := serveInProcess(t, Options{Registry: tool.NewRegistry(faulty), Workspaces: []string{t.TempDir()}},
		sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil), "2025-11-25")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "faulty_write", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var got ChangeResult
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	if !res.IsError || got.Status != protocol.StatusFailed || !strings.Contains(got.Message, "no space left") || got.Checkpoint != "" || got.Diff != "" {
		t.Errorf("result %+v, structured %s", res, raw)
	}
	if !strings.Contains(text(res), "Status: failed.") {
		t.Errorf("text %q", text(res))
	}
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}
