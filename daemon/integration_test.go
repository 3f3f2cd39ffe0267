package daemon_test

// These tests build the real binary and drive `tether serve` over its real
// stdin and stdout, as the editor extension does.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/protocol"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

// binary builds cmd/tether once per test run.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "tether-itest-")
		if buildErr == nil {
			binPath, buildErr = rpctest.Build(context.Background(), buildDir)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is one `tether serve` process with its own workspace and XDG folders.
type proc struct {
	*rpctest.Daemon
	t     *testing.T
	dir   string // the workspace
	state string // XDG_STATE_HOME

	mu      sync.Mutex
	answers []protocol.Answer // approval answers, in order
	asked   []protocol.ApprovalRequestParams
}

func startProc(t *testing.T) *proc {
	t.Helper()
	return startProcIn(t, "")
}

// startProcIn starts a daemon whose XDG state folder is state (a new one
// when empty), as the next daemon of a user whose last one died.
func startProcIn(t *testing.T, state string) *proc {
	t.Helper()
	return startDaemonProc(t, t.TempDir(), t.TempDir(), state, true, "TETHER_LOG_LEVEL=debug")
}

// startDaemonProc starts the tether binary on workspace ws with its XDG
// folders under home (its state folder state, when given) and env added.
// At the end of the test the daemon is killed if it still runs; strict
// makes that a test failure, for tests that must have stopped it
// themselves.
func startDaemonProc(t *testing.T, ws, home, state string, strict bool, env ...string) *proc {
	t.Helper()
	if state == "" {
		state = filepath.Join(home, "state")
	}
	p := &proc{t: t, dir: ws, state: state}
	d, err := rpctest.Start(context.Background(), binary(t), append([]string{
		"XDG_STATE_HOME=" + p.state,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_RUNTIME_DIR=" + home, // where it answers tether mcp's questions
	}, env...), p.handle)
	if err != nil {
		t.Fatal(err)
	}
	p.Daemon = d
	t.Cleanup(func() {
		select {
		case <-d.Exited():
		default:
			d.Kill()
			if strict {
				t.Errorf("the daemon was still running at the end of the test; stderr:\n%s", d.Stderr())
			}
		}
		<-d.Done()
	})
	return p
}

// handle answers approval/request from the queued answers.
func (p *proc) handle(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != protocol.MethodApprovalRequest {
		return nil, jsonrpc2.ErrMethodNotFound
	}
	var req protocol.ApprovalRequestParams
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req)
	if len(p.answers) == 0 {
		return protocol.ApprovalRequestResult{Answer: protocol.AnswerNo}, nil
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	return protocol.ApprovalRequestResult{Answer: a}, nil
}

func (p *proc) queueAnswers(answers ...protocol.Answer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answers = append(p.answers, answers...)
}

func (p *proc) approvalsAsked() []protocol.ApprovalRequestParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]protocol.ApprovalRequestParams(nil), p.asked...)
}

func (p *proc) initialize(settings *protocol.Settings) protocol.InitializeResult {
	p.t.Helper()
	var res protocol.InitializeResult
	if _, err := p.Call(waitCtx(p.t), protocol.MethodInitialize, protocol.InitializeParams{
		ClientInfo:       protocol.ClientInfo{Name: "itest"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(p.dir), Name: "ws"}},
		Capabilities:     protocol.ClientCapabilities{Approval: true},
		Settings:         settings,
	}, &res); err != nil {
		p.t.Fatalf("initialize: %v\nstderr:\n%s", err, p.Stderr())
	}
	return res
}

func (p *proc) tool(name string, args any) protocol.ToolCallResult {
	p.t.Helper()
	var res protocol.ToolCallResult
	if _, err := p.Call(waitCtx(p.t), protocol.MethodToolsCall, map[string]any{"name": name, "arguments": args, "requestId": "req-1"}, &res); err != nil {
		p.t.Fatalf("%s: %v", name, err)
	}
	return res
}

func (p *proc) errorOf(method string, params any) *jsonrpc2.Error {
	p.t.Helper()
	_, err := p.Call(waitCtx(p.t), method, params, nil)
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		p.t.Fatalf("%s: %v, want a JSON-RPC error", method, err)
	}
	return e
}

// finish sends shutdown and exit and checks the process ends with status 0
// and leaves nothing running in its process group.
func (p *proc) finish() {
	p.t.Helper()
	if _, err := p.Call(waitCtx(p.t), protocol.MethodShutdown, nil, nil); err != nil {
		p.t.Fatal(err)
	}
	if err := p.Notify(waitCtx(p.t), protocol.MethodExit, nil); err != nil {
		p.t.Fatal(err)
	}
	p.expectExit(0)
}

func (p *proc) expectExit(want int) {
	p.t.Helper()
	code, err := p.Wait(waitCtx(p.t))
	if err != nil || code != want {
		p.t.Fatalf("exit status %d (%v), want %d; stderr:\n%s", code, err, want, p.Stderr())
	}
	if p.GroupAlive() {
		p.t.Fatal("a process of the daemon's group outlived it")
	}
}

func (p *proc) write(rel, content string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, rel), []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *proc) read(rel string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, rel))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

func TestBinarySession(t *testing.T) {
	p := startProc(t)
	res := p.initialize(nil)
	if res.ServerInfo.Name != "tether" || res.ServerInfo.Version == "" {
		t.Errorf("serverInfo %+v", res.ServerInfo)
	}
	var list protocol.ToolsListResult
	if _, err := p.Call(waitCtx(t), protocol.MethodToolsList, struct{}{}, &list); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, ti := range list.Tools {
		have[ti.Name] = true
	}
	for _, name := range []string{"read_file", "grep", "edit_file"} {
		if !have[name] {
			t.Errorf("tools/list lacks %s", name)
		}
	}

	p.write("notes.txt", "alpha\nbeta\ngamma\n")
	if r := p.tool("read_file", map[string]any{"path": "notes.txt"}); r.IsError || r.Content != "1\talpha\n2\tbeta\n3\tgamma\n" {
		t.Fatalf("read_file: %+v", r)
	}

	fds := openFDs(t, p.Pid())
	p.queueAnswers(protocol.AnswerYes, protocol.AnswerNo)
	r := p.tool("edit_file", map[string]any{"path": "notes.txt", "old_string": "beta", "new_string": "BETA"})
	if r.IsError || !strings.Contains(r.Diff, "+BETA") {
		t.Fatalf("approved edit: %+v", r)
	}
	if got := p.read("notes.txt"); got != "alpha\nBETA\ngamma\n" {
		t.Fatalf("after the approved edit: %q", got)
	}
	r = p.tool("edit_file", map[string]any{"path": "notes.txt", "old_string": "gamma", "new_string": "GAMMA"})
	if !r.IsError || !strings.Contains(r.Content, "declined") {
		t.Fatalf("declined edit: %+v", r)
	}
	if got := p.read("notes.txt"); got != "alpha\nBETA\ngamma\n" {
		t.Fatalf("a declined edit changed the file: %q", got)
	}
	if asked := p.approvalsAsked(); len(asked) != 2 || asked[0].Tool != "edit_file" || !strings.Contains(asked[0].Diff, "-beta") {
		t.Fatalf("approval requests: %+v", asked)
	}

	if e := p.errorOf("no/such/method", struct{}{}); e.Code != jsonrpc2.MethodNotFound || !strings.Contains(e.Message, "no/such/method") {
		t.Fatalf("unknown method: %d %q", e.Code, e.Message)
	}
	if n := openFDs(t, p.Pid()); n != fds {
		t.Errorf("the daemon had %d open descriptors after the edits, %d before", n, fds)
	}
	p.finish()

	log, err := os.ReadFile(filepath.Join(p.state, "tether", "log", "tether.log"))
	if err != nil || !strings.Contains(string(log), "msg=initialized") {
		t.Fatalf("log file: %v\n%s", err, log)
	}
}

func TestBinaryRefusesCallsBeforeInitialize(t *testing.T) {
	p := startProc(t)
	e := p.errorOf(protocol.MethodToolsCall, map[string]any{"name": "read_file", "arguments": map[string]any{"path": "x"}})
	if e.Code != jsonrpc2.ServerNotInitialized {
		t.Fatalf("call before initialize: %d %q", e.Code, e.Message)
	}
	// The end of stdin ends the daemon cleanly.
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	p.expectExit(0)
}

func TestBinaryExitWithoutShutdown(t *testing.T) {
	p := startProc(t)
	p.initialize(nil)
	if err := p.Notify(waitCtx(t), protocol.MethodExit, nil); err != nil {
		t.Fatal(err)
	}
	p.expectExit(1)
}

func TestBinarySurvivesMalformedFrames(t *testing.T) {
	p := startProc(t)
	p.initialize(nil)
	p.write("a.txt", "a\n")
	huge := daemon.MaxMessageBytes + 1
	for _, tc := range []struct {
		name string
		send func() error
		code jsonrpc2.Code
	}{
		{"bad JSON", func() error { return p.Frame(`{"jsonrpc":"2.0","id":1,"method":`) }, jsonrpc2.ParseError},
		{"huge Content-Length", func() error {
			if err := p.Raw([]byte("Content-Length: " + strconv.Itoa(huge) + "\r\n\r\n")); err != nil {
				return err
			}
			chunk := make([]byte, 1<<20)
			for sent := 0; sent < huge; sent += len(chunk) {
				if err := p.Raw(chunk[:min(len(chunk), huge-sent)]); err != nil {
					return err
				}
			}
			return nil
		}, jsonrpc2.InvalidRequest},
		{"garbage header", func() error { return p.Raw([]byte("GET / HTTP/1.1\r\n")) }, jsonrpc2.ParseError},
	} {
		if err := tc.send(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		o, err := p.NextOrphan(waitCtx(t))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if o.Error.Code != tc.code {
			t.Errorf("%s: error %d %q, want code %d", tc.name, o.Error.Code, o.Error.Message, tc.code)
		}
		if r := p.tool("read_file", map[string]any{"path": "a.txt", "limit": len(tc.name)}); r.IsError {
			t.Fatalf("after %s: %+v", tc.name, r)
		}
	}
	p.finish()
}

// Cancelling a grep kills its ripgrep: the reply comes back, and the
// process is gone.
func TestBinaryCancelKillsRipgrep(t *testing.T) {
	p := startProc(t)
	pidFile := filepath.Join(t.TempDir(), "rg.pid")
	fakeRg := filepath.Join(t.TempDir(), "rg")
	script := "#!/bin/sh\necho $$ >> '" + pidFile + "'\nexec sleep 300\n"
	if err := os.WriteFile(fakeRg, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p.initialize(&protocol.Settings{RgPath: fakeRg})
	ctx := waitCtx(t)
	var fds int
	for round := range 3 {
		call, err := p.Go(ctx, "grep-"+strconv.Itoa(round), protocol.MethodToolsCall,
			map[string]any{"name": "grep", "arguments": map[string]any{"pattern": "x" + strconv.Itoa(round)}, "requestId": "req-1"})
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "the fake rg to start", func() bool { return len(readPids(pidFile)) > round })
		if call.Answered() {
			t.Fatal("grep answered while rg was still sleeping")
		}
		if err := call.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		raw, err := call.Wait(ctx)
		if err != nil {
			t.Fatalf("cancelled grep: %v", err)
		}
		var res protocol.ToolCallResult
		if err := json.Unmarshal(raw, &res); err != nil || !res.IsError || !strings.Contains(res.Content, "cancel") {
			t.Fatalf("cancelled grep's reply: %s", raw)
		}
		for _, pid := range readPids(pidFile) {
			if rpctest.ProcessAlive(pid) {
				t.Fatalf("rg (pid %d) is still running after the cancelled grep replied", pid)
			}
		}
		// The first round may open descriptors for good (the poller);
		// later rounds must leave the count as they found it.
		n := openFDs(t, p.Pid())
		if round > 0 && n != fds {
			t.Fatalf("the daemon had %d open descriptors after cancelled grep %d, %d before", n, round, fds)
		}
		fds = n
	}
	p.finish()
}

// openFDs counts a process's open file descriptors.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(entries)
}

// A grep still running when stdin closes is cancelled, and its rg killed,
// before the daemon exits.
func TestBinaryStdinCloseStopsRunningCalls(t *testing.T) {
	p := startProc(t)
	pidFile := filepath.Join(t.TempDir(), "rg.pid")
	fakeRg := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(fakeRg, []byte("#!/bin/sh\necho $$ >> '"+pidFile+"'\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.initialize(&protocol.Settings{RgPath: fakeRg})
	if _, err := p.Go(waitCtx(t), "grep-2", protocol.MethodToolsCall, map[string]any{"name": "grep", "arguments": map[string]any{"pattern": "x"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the fake rg to start", func() bool { return len(readPids(pidFile)) > 0 })
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	p.expectExit(0)
	for _, pid := range readPids(pidFile) {
		if rpctest.ProcessAlive(pid) {
			t.Errorf("rg (pid %d) outlived the daemon", pid)
		}
	}
}

func readPids(path string) []int {
	b, _ := os.ReadFile(path)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// eventually waits for cond, failing the test if it never holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
