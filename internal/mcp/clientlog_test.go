package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server's log reaches the client as MCP log messages at their own
// levels, from the level the client chose; stderr, which clients show as
// warnings, stays quiet.
func TestLogReachesTheClient(t *testing.T) {
	f := newFixture(t)
	f.env = append(f.env, "TETHER_LOG_LEVEL=") // as a user runs it
	root := filepath.Join(t.TempDir(), "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []*sdk.LoggingMessageParams
	arrived := make(chan struct{}, 16)
	client := newClient(&sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
		mu.Lock()
		got = append(got, req.Params)
		mu.Unlock()
		arrived <- struct{}{}
	}})
	client.AddRoots(&sdk.Root{URI: fileURI(root), Name: "R"})
	s := f.connectIn(t, f.ws, client, v1125)
	if err := s.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	// Taking the client's roots is logged at info.
	mustOK(t, "list_dir", s.call(t, "list_dir", map[string]any{}))
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("no log message reached the client; stderr:\n%s", s.stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	var found bool
	for _, m := range got {
		text, _ := m.Data.(string)
		if m.Level == "info" && m.Logger == "tether" && strings.Contains(text, "workspace from the client's roots") && strings.Contains(text, root) {
			found = true
		}
		if strings.Contains(text, "level=") || strings.Contains(text, "time=") {
			t.Errorf("a message repeats the level or the time: %q", text)
		}
	}
	if !found {
		t.Errorf("the roots message did not come at info: %+v", got)
	}
	if e := s.stderr.String(); strings.Contains(e, "level=INFO") || strings.Contains(e, "level=WARN") {
		t.Errorf("stderr carries log lines below error:\n%s", e)
	}
}
