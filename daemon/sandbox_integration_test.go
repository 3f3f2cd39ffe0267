//go:build linux

package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/protocol"
)

// The shell sandbox through `tether serve`, as the editor drives it.

func needFull(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if st := sandbox.Probe(ctx, ""); st.Level != sandbox.LevelFull {
		t.Skipf("no full sandbox here: %s", st.Why)
	}
}

// hostServer listens on the host's loopback and counts requests.
func hostServer(t *testing.T) (addr string, hits *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hits = &atomic.Int32{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintln(w, "hello from the host")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), hits
}

func (p *proc) toolIn(request, name string, args any) protocol.ToolCallResult {
	p.t.Helper()
	var res protocol.ToolCallResult
	if _, err := p.Call(waitCtx(p.t), protocol.MethodToolsCall, map[string]any{"name": name, "arguments": args, "requestId": request}, &res); err != nil {
		p.t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestBinarySandboxConfinesAndAsksForNetwork(t *testing.T) {
	needFull(t)
	addr, hits := hostServer(t)
	page, pageHits := hostServer(t)
	p := startProc(t)
	p.initialize(&protocol.Settings{WebPrivateHosts: []string{"127.0.0.1"}, WebAllowedHosts: []string{"127.0.0.1"}})
	outside := t.TempDir()

	// Writes outside the workspace are refused; inside they land.
	p.queueAnswers(protocol.AnswerYes)
	r := p.tool("shell", map[string]any{"command": "touch inside " + outside + "/escaped"})
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Fatalf("a sandboxed command wrote outside the workspace: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "inside")); err != nil {
		t.Fatalf("the command did not write inside the workspace: %+v", r)
	}

	// network: true asks, says so, and "yes" reaches the host's port.
	curl := map[string]any{"command": "curl -sS --max-time 5 http://" + addr + "/", "network": true}
	p.queueAnswers(protocol.AnswerYes)
	if r := p.tool("shell", curl); !strings.Contains(r.Content, "hello from the host") || hits.Load() != 1 {
		t.Fatalf("network yes: %+v", r)
	}
	asked := p.approvalsAsked()
	last := asked[len(asked)-1]
	if !last.Network || last.Sandbox == nil || !*last.Sandbox || !strings.Contains(last.Title, "with network access") {
		t.Errorf("the approval does not say network: %+v", last)
	}
	// "no": nothing runs.
	p.queueAnswers(protocol.AnswerNo)
	if r := p.tool("shell", curl); !r.IsError || hits.Load() != 1 {
		t.Fatalf("network no: %+v, hits %d", r, hits.Load())
	}
	// Without network the port is unreachable, and the result says why.
	p.queueAnswers(protocol.AnswerYes)
	r = p.tool("shell", map[string]any{"command": "python3 -c 'import urllib.request,sys; urllib.request.urlopen(sys.argv[1])' http://" + addr + "/"})
	if hits.Load() != 1 || !strings.Contains(r.Content, "network: true") {
		t.Errorf("without network: hits %d, result %+v", hits.Load(), r)
	}
	p.finish()

	// In bypass, network runs unasked, until the request reads a web page.
	p = startProc(t)
	p.initialize(&protocol.Settings{PermissionMode: protocol.ModeBypass, WebPrivateHosts: []string{"127.0.0.1"}, WebAllowedHosts: []string{"127.0.0.1"}})
	if r := p.toolIn("r2", "shell", curl); !strings.Contains(r.Content, "hello from the host") || len(p.approvalsAsked()) != 0 {
		t.Fatalf("bypass before web content: %+v, asked %+v", r, p.approvalsAsked())
	}
	if r := p.toolIn("r2", "web_fetch", map[string]any{"url": "http://" + page + "/"}); r.IsError || pageHits.Load() != 1 {
		t.Fatalf("web_fetch: %+v", r)
	}
	p.queueAnswers(protocol.AnswerNo)
	if r := p.toolIn("r2", "shell", curl); !r.IsError || len(p.approvalsAsked()) != 1 {
		t.Fatalf("bypass after web content did not ask: %+v, asked %+v", r, p.approvalsAsked())
	}
	if req := p.approvalsAsked()[0]; req.AlwaysScope != "" || len(req.Untrusted) != 1 {
		t.Errorf("approval after web content: %+v", req)
	}
	// Another request has read nothing: bypass lets it run.
	if r := p.toolIn("r3", "shell", curl); r.IsError || len(p.approvalsAsked()) != 1 {
		t.Errorf("a fresh request after the web one: %+v", r)
	}
	p.finish()
}

// Always is saved per program and subcommand; permissions/list shows it
// and permissions/remove forgets one rule. Commands ask before they run at
// the landlock level (no overlay takes their writes in), where rules
// matter.
func TestBinaryAlwaysPerSubcommandListedAndRemoved(t *testing.T) {
	needFull(t)
	p := startProc(t)
	p.initialize(&protocol.Settings{ShellSandbox: sandbox.SettingLandlock})
	p.queueAnswers(protocol.AnswerAlways)
	p.tool("shell", map[string]any{"command": "git init -q . && git add -A"})
	var list protocol.PermissionsListResult
	if _, err := p.Call(waitCtx(t), protocol.MethodPermissionsList, struct{}{}, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.Rules {
		names = append(names, r.Program+" "+r.Subcommand)
		if r.Network == nil || *r.Network {
			t.Errorf("a rule saved without network says otherwise: %+v", r)
		}
	}
	if strings.Join(names, ",") != "git init,git add" {
		t.Fatalf("saved rules: %+v", list.Rules)
	}
	// git add now runs unasked; git commit does not.
	before := len(p.approvalsAsked())
	p.tool("shell", map[string]any{"command": "git add -A"})
	p.tool("shell", map[string]any{"command": "git commit -qm x"})
	if n := len(p.approvalsAsked()) - before; n != 1 {
		t.Errorf("asked %d times for git add and git commit, want once", n)
	}
	var removed protocol.PermissionsRemoveResult
	if _, err := p.Call(waitCtx(t), protocol.MethodPermissionsRemove, protocol.PermissionsRemoveParams{Rules: []protocol.PermissionRule{list.Rules[1]}}, &removed); err != nil || removed.Removed != 1 {
		t.Fatalf("permissions/remove: %+v %v", removed, err)
	}
	before = len(p.approvalsAsked())
	p.tool("shell", map[string]any{"command": "git add -A"})
	if len(p.approvalsAsked()) == before {
		t.Error("a removed rule still allows")
	}
	p.finish()
}

func TestBinaryRefusesABadSandboxSetting(t *testing.T) {
	p := startProc(t)
	_, err := p.Call(waitCtx(t), protocol.MethodInitialize, protocol.InitializeParams{
		ClientInfo: protocol.ClientInfo{Name: "itest"}, WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(p.dir), Name: "ws"}},
		Settings: &protocol.Settings{ShellSandbox: "sometimes"},
	}, nil)
	var e *jsonrpc2.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "settings.shellSandbox") {
		t.Fatalf("initialize with a bad shellSandbox: %v", err)
	}
	p.Kill()
}

// SIGKILL to the daemon while sandboxed commands run: nothing of them is
// left, their sandboxes' first processes included.
func TestBinarySandboxDiesWithTheDaemon(t *testing.T) {
	needFull(t)
	p := startDaemonProc(t, t.TempDir(), t.TempDir(), "", false)
	p.initialize(&protocol.Settings{PermissionMode: protocol.ModeBypass})
	marker := "1000." + strconv.Itoa(os.Getpid()) + strconv.Itoa(int(time.Now().UnixNano()%100000))
	job := p.tool("shell", map[string]any{"command": "env -i setsid sleep " + marker + "1 & sleep " + marker + "2", "background": true})
	if job.IsError {
		t.Fatalf("job: %+v", job)
	}
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan struct{})
	go func() {
		defer close(called)
		p.Call(ctx, protocol.MethodToolsCall, map[string]any{"name": "shell", "arguments": map[string]any{"command": "env -i setsid sleep " + marker + "3 & sleep " + marker + "4"}, "requestId": "r"}, nil)
	}()
	defer func() { cancel(); <-called }()
	deadline := time.Now().Add(10 * time.Second)
	for _, n := range []string{"1", "2", "3", "4"} {
		for len(sleeping(marker+n)) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if len(sleeping(marker+n)) == 0 {
			t.Fatalf("sleep %s%s never started", marker, n)
		}
	}
	inits := sandboxInitsOf(p.Pid())
	if len(inits) != 2 {
		t.Fatalf("sandbox inits of the daemon: %v", inits)
	}
	p.KillDaemon()
	deadline = time.Now().Add(10 * time.Second)
	for _, n := range []string{"1", "2", "3", "4"} {
		for len(sleeping(marker+n)) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if left := sleeping(marker + n); len(left) > 0 {
			t.Errorf("sleep %s%s outlived its killed daemon: %v", marker, n, left)
		}
	}
	for _, pid := range inits {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("a sandbox init %d outlived its killed daemon", pid)
		}
	}
}

// sleeping lists the processes running `sleep d`.
func sleeping(d string) []int {
	return procsWhere(func(_ int, cmdline string, _ int) bool { return cmdline == "sleep\x00"+d+"\x00" })
}

// sandboxInitsOf lists the sandbox inits that are children of pid.
func sandboxInitsOf(parent int) []int {
	return procsWhere(func(_ int, cmdline string, ppid int) bool {
		return ppid == parent && strings.HasPrefix(cmdline, "tether-sandbox\x00")
	})
}

func procsWhere(keep func(pid int, cmdline string, ppid int) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		ppid := 0
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 1 {
				ppid, _ = strconv.Atoi(f[1])
			}
		}
		if keep(pid, string(cmd), ppid) {
			out = append(out, pid)
		}
	}
	return out
}

// alive: the process exists and is neither a zombie nor exiting.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
