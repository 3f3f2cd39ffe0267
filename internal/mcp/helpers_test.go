package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tetherBin is the real binary, built once in TestMain: the tests speak to
// `tether mcp` as an MCP client would, over its stdin and stdout.
var tetherBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tether-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tetherBin = filepath.Join(dir, "tether")
	args := []string{"build", "-o", tetherBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, "../../cmd/tether")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building tether: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Protocol versions the tests speak: the newest (where questions travel in
// results), the newest with server requests, and the oldest.
const (
	latest = "" // what the SDK's client asks for: 2026-07-28
	v1125  = "2025-11-25"
	v1105  = "2024-11-05"
)

// fixture is one test's workspace and private XDG folders, so undo
// checkpoints and saved rules never touch the user's.
type fixture struct {
	ws   string
	home string
	env  []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{ws: t.TempDir(), home: t.TempDir()}
	f.env = append(os.Environ(),
		"HOME="+f.home,
		"XDG_STATE_HOME="+filepath.Join(f.home, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(f.home, "config"),
		"XDG_DATA_HOME="+filepath.Join(f.home, "data"),
		"XDG_CACHE_HOME="+filepath.Join(f.home, "cache"),
		"XDG_RUNTIME_DIR="+f.home, // the approvals channel: owner-only, the test's own
		"TETHER_LOG_LEVEL=debug",
	)
	return f
}

func (f *fixture) write(t *testing.T, rel, content string) string {
	t.Helper()
	p := filepath.Join(f.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.ws, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// syncBuffer collects the server's stderr, which its goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// session is one client connected to one `tether mcp`.
type session struct {
	*sdk.ClientSession
	stderr *syncBuffer
}

// connect starts `tether mcp args...` in dir (the workspace unless args
// say otherwise) and connects client to it with the given protocol
// version. The server must exit cleanly when the client closes.
func (f *fixture) connect(t *testing.T, client *sdk.Client, version string, args ...string) *session {
	t.Helper()
	return f.connectIn(t, f.ws, client, version, append([]string{"--workspace", f.ws}, args...)...)
}

func (f *fixture) connectIn(t *testing.T, dir string, client *sdk.Client, version string, args ...string) *session {
	t.Helper()
	cmd := exec.Command(tetherBin, append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = f.env
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting: %v\nserver log:\n%s", err, stderr.String())
	}
	s := &session{ClientSession: cs, stderr: stderr}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("the server did not exit cleanly when the client closed: %v\nserver log:\n%s", err, stderr.String())
		}
	})
	return s
}

func newClient(opts *sdk.ClientOptions) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "tether-test", Version: "1"}, opts)
}

// call runs a tool and fails the test on a protocol error.
func (s *session) call(t *testing.T, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v\nserver log:\n%s", name, err, s.stderr.String())
	}
	return res
}

// text is a result's text content.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// mustOK fails the test when a call failed.
func mustOK(t *testing.T, what string, res *sdk.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", what, text(res))
	}
	return text(res)
}

// structured decodes a result's structured content.
func structured(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

// fileURI is the file:// URI of a local folder.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// elicitor answers every elicitation with answer and records the prompts.
type elicitor struct {
	mu       sync.Mutex
	action   string
	content  map[string]any
	messages []string
	schemas  []any
}

func (e *elicitor) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, req.Params.Message)
	e.schemas = append(e.schemas, req.Params.RequestedSchema)
	return &sdk.ElicitResult{Action: e.action, Content: e.content}, nil
}

func (e *elicitor) prompts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.messages...)
}

// runTether runs a tether command against the fixture's folders.
func (f *fixture) runTether(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(tetherBin, args...)
	cmd.Dir = f.ws
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tether %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// hasRg reports whether ripgrep is on PATH (grep and glob need it).
func hasRg() bool {
	_, err := exec.LookPath("rg")
	return err == nil
}
