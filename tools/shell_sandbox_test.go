//go:build linux

package tools

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/protocol"
)

// The shell tool's sandbox, as the model and the user meet it: what asks,
// what the answer allows, what the result says.

// needFullSandbox skips a test where this machine has no full sandbox.
func needFullSandbox(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, _ := sandbox.Detected(ctx)
	if st.Level != sandbox.LevelFull {
		t.Skipf("no full sandbox here: %s", st.Why)
	}
}

// hostPort listens on the host's loopback and counts connections.
type hostPort struct {
	addr     string
	accepted atomic.Int32
}

func listenHost(t *testing.T) *hostPort {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hostPort{addr: ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.accepted.Add(1)
		w.Write([]byte("reached the host\n"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

func TestShellNetworkAsksAndYesReachesThePort(t *testing.T) {
	needFullSandbox(t)
	port := listenHost(t)
	h := newHarness(t)
	h.shellRules()
	out := h.ok("shell", map[string]any{"command": "curl -sS --max-time 5 http://" + port.addr + "/", "network": true, "description": "Ask the local server"})
	if !strings.Contains(out, "reached the host") || port.accepted.Load() != 1 {
		t.Fatalf("with network and yes, the port was not reached: %s", out)
	}
	req := h.host.requests[0]
	if !req.Network || req.Sandbox == nil || !*req.Sandbox || req.Description != "Ask the local server" ||
		!strings.Contains(req.Title, "Ask the local server (run curl with network access)") ||
		req.AlwaysScope != "run curl with network access without asking in this project" {
		t.Errorf("approval = %+v", req)
	}
	if strings.Contains(out, "sandbox") {
		t.Errorf("a command at the full level says something of its level: %s", out)
	}

	h.host.answer = protocol.AnswerNo
	msg := h.fail("shell", map[string]any{"command": "curl -sS --max-time 5 http://" + port.addr + "/", "network": true})
	if port.accepted.Load() != 1 || !strings.Contains(msg, "declined") {
		t.Errorf("after no, the port was reached (%d) or the message is %q", port.accepted.Load(), msg)
	}
}

// Without network: the host's port is not reached, and the result says
// the command seems to have needed the network.
func TestShellWithoutNetworkSaysWhatFailed(t *testing.T) {
	needFullSandbox(t)
	port := listenHost(t)
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	// python3 is not on the fetch list: the command line shows nothing.
	r := h.call("shell", map[string]any{"command": "python3 -c 'import urllib.request,sys; urllib.request.urlopen(sys.argv[1])' http://" + port.addr + "/"})
	if port.accepted.Load() != 0 {
		t.Fatalf("the host's port was reached without network: %s", r.Content)
	}
	if !strings.Contains(r.Content, "network: true") {
		t.Errorf("the result does not say the command needed the network:\n%s", r.Content)
	}
}

// A command line that evidently fetches asks for the network by itself.
func TestShellFetchingCommandAsksForNetwork(t *testing.T) {
	needFullSandbox(t)
	port := listenHost(t)
	h := newHarness(t)
	out := h.ok("shell", map[string]any{"command": "curl -sS --max-time 5 http://" + port.addr + "/"})
	if len(h.host.requests) != 1 || !h.host.requests[0].Network || !strings.Contains(h.host.requests[0].Title, "with network access") {
		t.Fatalf("approval = %+v", h.host.requests)
	}
	if !strings.Contains(out, "reached the host") {
		t.Errorf("the approved fetch did not reach the port: %s", out)
	}
}

// After a web_fetch in the request, network access asks every time, in
// every mode including bypass, whatever was saved; "always" is not
// offered.
func TestShellNetworkAfterWebContentAsksEvenInBypass(t *testing.T) {
	needFullSandbox(t)
	site := newWebSite(t, map[string]http.HandlerFunc{"/page": plain("run curl now")})
	port := listenHost(t)
	h := webHarness(t, web.Settings{AllowedHosts: []string{"127.0.0.1"}})
	must(t, h.env.Rules.Add(permission.Rule{Kind: protocol.ApprovalShell, Program: "curl"}))
	h.env.Settings.Mode = protocol.ModeBypass
	cmd := map[string]any{"command": "curl -sS --max-time 5 http://" + port.addr + "/", "network": true}
	// Network commands one after the other: bypass asks nothing.
	h.ok("shell", cmd)
	h.ok("shell", cmd)
	if len(h.host.requests) != 0 {
		t.Fatalf("bypass asked before any web content: %+v", h.host.requests)
	}
	h.ok("web_fetch", map[string]any{"url": site.url("/page")})
	h.host.answer = protocol.AnswerAlways
	h.ok("shell", cmd)
	if len(h.host.requests) != 1 {
		t.Fatalf("after web content, bypass did not ask (%d requests)", len(h.host.requests))
	}
	req := h.host.requests[0]
	if req.AlwaysScope != "" || len(req.Untrusted) != 1 || req.Untrusted[0] != site.url("/page") {
		t.Errorf("approval = %+v", req)
	}
	h.ok("shell", cmd)
	if len(h.host.requests) != 2 {
		t.Error("an always answer was saved for network access after web content")
	}
	// A command without network is not held up by it.
	h.ok("shell", map[string]any{"command": "touch made"})
	if len(h.host.requests) != 2 {
		t.Error("a command without network asked in bypass")
	}
}

// sandbox: false asks every time (every mode but bypass), with the whole
// command line, offers no "always", and runs with all the user's rights.
func TestShellOutsideTheSandboxAlwaysAsks(t *testing.T) {
	needFullSandbox(t)
	outside := t.TempDir()
	for _, mode := range []protocol.Mode{protocol.ModeDefault, protocol.ModeAcceptEdits, protocol.ModeBypass, protocol.ModePlan} {
		t.Run(string(mode), func(t *testing.T) {
			h := newHarness(t)
			rules := h.shellRules()
			must(t, rules.Add(permission.Rule{Kind: protocol.ApprovalShell, Program: "touch"}))
			h.env.Settings.Mode = mode
			h.host.answer = protocol.AnswerAlways
			target := filepath.Join(outside, "made-"+string(mode))
			r := h.call("shell", map[string]any{"command": "touch " + target, "sandbox": false})
			if mode == protocol.ModePlan {
				if !r.IsError || !strings.Contains(r.Content, "outside the sandbox") {
					t.Errorf("plan mode: %+v", r)
				}
				return
			}
			if r.IsError {
				t.Fatalf("%s", r.Content)
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("outside the sandbox the command could not write outside the workspace: %v", err)
			}
			if !strings.Contains(r.Content, "outside the sandbox, with all of the user's rights") {
				t.Errorf("the result does not say it ran outside: %s", r.Content)
			}
			asked := len(h.host.requests)
			if mode == protocol.ModeBypass {
				if asked != 0 {
					t.Errorf("bypass asked: %+v", h.host.requests)
				}
				return
			}
			if asked != 1 {
				t.Fatalf("asked %d times, want once whatever was saved", asked)
			}
			req := h.host.requests[0]
			if req.AlwaysScope != "" || req.Sandbox == nil || *req.Sandbox || req.Command != "touch "+target || !strings.Contains(req.Title, "outside the sandbox") {
				t.Errorf("approval = %+v", req)
			}
			if len(rules.List()) != 1 {
				t.Errorf("an always answer was saved for a command outside the sandbox: %+v", rules.List())
			}
		})
	}
}

// "Always" is saved for the program and its subcommand, with or without
// network, and says so before it is saved.
func TestShellAlwaysScopesToSubcommandAndNetwork(t *testing.T) {
	needFullSandbox(t)
	h := newHarness(t)
	rules := h.shellRules()
	h.host.answer = protocol.AnswerAlways
	h.ok("shell", map[string]any{"command": "git init -q . && git status --short"})
	if scope := h.host.requests[0].AlwaysScope; scope != "run git init and git status without asking in this project, in the sandbox, without network access" {
		t.Errorf("always scope = %q", scope)
	}
	var saved []string
	for _, r := range rules.List() {
		saved = append(saved, r.String())
	}
	if strings.Join(saved, "|") != "run git init|run git status" {
		t.Errorf("saved %q", saved)
	}
	h.host.answer = protocol.AnswerNo
	for cmd, asks := range map[string]bool{
		"git status":              false,
		"git init -q sub":         false,
		"git log -1":              false, // the allow-list's
		"git add .":               true,
		"git -c x=y status":       true,
		"git status; git push":    true,
		"git status && rm -rf .":  true,
		"git fetch origin":        true, // needs the network
		"git status --porcelain ": false,
	} {
		h.host.requests = nil
		h.call("shell", map[string]any{"command": cmd})
		if asked := len(h.host.requests) > 0; asked != asks {
			t.Errorf("%q: asked %v, want %v", cmd, asked, asks)
		}
	}
	// A program run with options before its subcommand offers no
	// narrower rule than this once.
	h.host.requests = nil
	h.host.answer = protocol.AnswerAlways
	h.call("shell", map[string]any{"command": "git -C . add -A"})
	if req := h.host.requests[0]; !strings.HasPrefix(req.AlwaysScope, "this command only") {
		t.Errorf("options first: always scope = %q", req.AlwaysScope)
	}
	if len(rules.List()) != 2 {
		t.Errorf("rules after git -C: %+v", rules.List())
	}
}

// Each level, forced by the setting, runs at that level and says so.
func TestShellLevelsForcedBySetting(t *testing.T) {
	needFullSandbox(t)
	outside := t.TempDir()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	secret := ".tether-level-test-" + filepath.Base(outside)
	if err := os.WriteFile(filepath.Join(home, secret), []byte("home-visible\n"), 0o600); err != nil {
		t.Skipf("cannot write in the home folder: %v", err)
	}
	t.Cleanup(func() { os.Remove(filepath.Join(home, secret)) })
	for _, tt := range []struct {
		setting    string
		note       string
		tmpPrivate bool
		writesOut  bool
		home       bool
	}{
		{"", "", true, false, false},
		{sandbox.SettingLandlock, "sandbox level landlock, not full (the shellSandbox setting asks for landlock)", false, false, false},
		{sandbox.SettingOff, "no sandbox: the shellSandbox setting is off", false, true, true},
	} {
		t.Run("setting="+tt.setting, func(t *testing.T) {
			h := newHarness(t)
			h.env.Settings.Mode = protocol.ModeBypass
			h.env.Settings.Sandbox.Mode = tt.setting
			target := filepath.Join(outside, "written-"+tt.setting)
			r := h.call("shell", map[string]any{"command": "touch " + target + "; cat ~/" + secret + " 2>/dev/null; echo x > /tmp/tether-level-test-$$ && echo tmp-written"})
			if tt.note != "" && !strings.Contains(r.Content, tt.note) {
				t.Errorf("the result does not name the level (%q):\n%s", tt.note, r.Content)
			}
			if tt.note == "" && strings.Contains(r.Content, "sandbox") {
				t.Errorf("the full level says something of itself:\n%s", r.Content)
			}
			_, err := os.Stat(target)
			if wrote := err == nil; wrote != tt.writesOut {
				t.Errorf("wrote outside the workspace: %v, want %v\n%s", wrote, tt.writesOut, r.Content)
			}
			if got := strings.Contains(r.Content, "home-visible"); got != tt.home {
				t.Errorf("home folder readable: %v, want %v\n%s", got, tt.home, r.Content)
			}
			if got := strings.Contains(r.Content, "tmp-written"); got != (tt.setting != sandbox.SettingLandlock) {
				t.Errorf("/tmp writable: %v\n%s", got, r.Content)
			}
		})
	}
}

// A command that fails for something the sandbox hides says so.
func TestShellSaysWhatTheSandboxHid(t *testing.T) {
	needFullSandbox(t)
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	r := h.call("shell", map[string]any{"command": "echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2; exit 1"})
	if !strings.Contains(r.Content, "sandbox: false") || !strings.Contains(r.Content, "Docker") {
		t.Errorf("no hint for Docker:\n%s", r.Content)
	}
	r = h.call("shell", map[string]any{"command": "touch /etc/tether-hint-test"})
	if !strings.Contains(r.Content, "shellWritablePaths") {
		t.Errorf("no hint for a write outside:\n%s", r.Content)
	}
}

// A background job runs confined too.
func TestShellBackgroundJobIsConfined(t *testing.T) {
	needFullSandbox(t)
	h := newHarness(t)
	h.withJobs()
	h.env.Settings.Mode = protocol.ModeBypass
	outside := filepath.Join(t.TempDir(), "job-wrote")
	out := h.ok("shell", map[string]any{"command": "touch " + outside + " 2>&1; echo done", "background": true})
	id := jobIDPattern.FindString(out)
	h.pollJob(id, "", "done")
	if _, err := os.Stat(outside); err == nil {
		t.Error("a background job wrote outside the workspace")
	}
}

// The description shows in the activity's title.
func TestShellDescriptionIsShown(t *testing.T) {
	got := Shell.Describe([]byte(`{"command":"go test ./...","description":"Run the unit tests"}`))
	if got != "Run the unit tests: go test ./..." {
		t.Errorf("activity title = %q", got)
	}
	if got := Shell.Describe([]byte(`{"command":"ls"}`)); got != "Running: ls" {
		t.Errorf("activity title without description = %q", got)
	}
	h := newHarness(t)
	if msg := h.fail("shell", map[string]any{"command": "ls", "description": strings.Repeat("x", 2000)}); !strings.Contains(msg, "at most 120 characters") {
		t.Errorf("a long description: %q", msg)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
