package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// made reports whether a command created a workspace file.
func (h *harness) made(rel string) bool {
	_, err := os.Stat(filepath.Join(h.dir, rel))
	return err == nil
}

// shellRules gives the harness a saved-rules file of its own.
func (h *harness) shellRules() *permission.Rules {
	h.t.Helper()
	rules, err := permission.LoadRules(filepath.Join(h.t.TempDir(), "allow.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	h.env.Rules = rules
	return rules
}

// previewShell previews a call.
func (h *harness) previewShell(name string, args any) tool.Result {
	h.t.Helper()
	raw, _ := json.Marshal(args)
	return h.reg.Invoke(context.Background(), &tool.Call{Name: name, Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env, Prepare: true})
}

func TestShellToolInfo(t *testing.T) {
	tests := []struct {
		tool       tool.Tool
		permission string
		risk       protocol.Risk
		readOnly   bool
	}{
		{Shell, "in the full sandbox without network: runs unasked, its changes reviewed after like an edit; otherwise asks per program and subcommand, and for network access; outside the sandbox, every time", protocol.RiskHigh, false},
		{ShellOutput, "auto", protocol.RiskLow, true},
		{ShellKill, "asks", protocol.RiskMedium, false},
	}
	for _, tt := range tests {
		info := tt.tool.Info(nil)
		if info.Permission != tt.permission || info.Risk != tt.risk || info.ReadOnly != tt.readOnly {
			t.Errorf("%s: permission %q risk %q readOnly %v", info.Name, info.Permission, info.Risk, info.ReadOnly)
		}
	}
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(Shell.Info(nil).InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"command", "timeout", "background"} {
		if _, ok := schema.Properties[arg]; !ok {
			t.Errorf("shell has no %q argument", arg)
		}
	}
	if schema.Properties["timeout"].Type != "number" {
		t.Errorf("timeout type = %v, want number", schema.Properties["timeout"].Type)
	}
}

func TestShellReadOnlyCommandRunsWithoutAsking(t *testing.T) {
	h := newHarness(t)
	h.write("main.go", "package main\n")
	out := h.ok("shell", map[string]any{"command": "ls && pwd"})
	if !strings.Contains(out, "main.go") || !strings.Contains(out, h.dir) || !strings.Contains(out, "exit code 0") {
		t.Errorf("output = %q", out)
	}
	if len(h.host.requests) != 0 {
		t.Errorf("a read-only command asked: %+v", h.host.requests)
	}
}

func TestShellAsksNamingEveryProgram(t *testing.T) {
	h := newHarness(t)
	out := h.ok("shell", map[string]any{"command": "touch a.txt && ls | xargs rm -f"})
	if len(h.host.requests) != 1 {
		t.Fatalf("asked %d times, want once", len(h.host.requests))
	}
	req := h.host.requests[0]
	if req.Kind != protocol.ApprovalShell || req.Command != "touch a.txt && ls | xargs rm -f" || req.Tool != "shell" {
		t.Errorf("request = %+v", req)
	}
	for _, p := range []string{"touch", "ls", "rm"} {
		if !strings.Contains(req.Title, p) || !strings.Contains(req.AlwaysScope, p) {
			t.Errorf("the approval does not name %s: title %q, always %q", p, req.Title, req.AlwaysScope)
		}
	}
	if !strings.Contains(out, "exit code 0") || h.made("a.txt") {
		t.Errorf("approved command did not run as asked: %q", out)
	}
}

func TestShellRefusedCommandDoesNotRun(t *testing.T) {
	for _, answer := range []protocol.Answer{protocol.AnswerNo, protocol.AnswerSkip} {
		t.Run(string(answer), func(t *testing.T) {
			h := newHarness(t)
			h.host.answer = answer
			msg := h.fail("shell", map[string]any{"command": "touch made"})
			if h.made("made") {
				t.Errorf("the command ran although the user answered %s", answer)
			}
			if !strings.Contains(msg, "did not happen") {
				t.Errorf("message = %q", msg)
			}
		})
	}
}

func TestShellWithoutAnyoneToAskRefuses(t *testing.T) {
	h := newHarness(t)
	h.env.Host = nil
	msg := h.fail("shell", map[string]any{"command": "touch made"})
	if h.made("made") || !strings.Contains(msg, "nobody can be asked") {
		t.Errorf("message = %q, made = %v", msg, h.made("made"))
	}
}

func TestShellAlwaysIsSavedPerProgram(t *testing.T) {
	h := newHarness(t)
	rules := h.shellRules()
	h.host.answer = protocol.AnswerAlways
	h.ok("shell", map[string]any{"command": "touch a && rm a"})
	saved := map[string]bool{}
	for _, r := range rules.List() {
		saved[r.Program] = r.Kind == protocol.ApprovalShell
	}
	if !saved["touch"] || !saved["rm"] || len(saved) != 2 {
		t.Fatalf("saved rules = %+v, want touch and rm", rules.List())
	}
	h.host.answer = protocol.AnswerNo
	h.host.requests = nil
	tests := []struct {
		command string
		asks    bool
	}{
		{"touch b", false},
		{"rm -f b; touch c", false},
		{"cd . && touch d", false},
		{"touch e && mkdir f", true},
		{"sudo rm x", true},
	}
	for _, tt := range tests {
		h.host.requests = nil
		h.call("shell", map[string]any{"command": tt.command})
		if asked := len(h.host.requests) > 0; asked != tt.asks {
			t.Errorf("%q: asked = %v, want %v", tt.command, asked, tt.asks)
		}
	}
}

func TestShellUnknowableCommandAlwaysAsks(t *testing.T) {
	h := newHarness(t)
	rules := h.shellRules()
	h.host.answer = protocol.AnswerAlways
	h.ok("shell", map[string]any{"command": "CMD=true; $CMD"})
	if n := len(rules.List()); n != 0 {
		t.Errorf("an unknowable command saved %d rules", n)
	}
	req := h.host.requests[0]
	if !strings.Contains(req.AlwaysScope, "this command only") || !strings.Contains(req.AlwaysScope, "cannot be known") {
		t.Errorf("always scope = %q", req.AlwaysScope)
	}
	h.ok("shell", map[string]any{"command": "CMD=true; $CMD x"})
	if len(h.host.requests) != 2 {
		t.Errorf("the second unknowable command was not asked about")
	}
}

func TestShellModes(t *testing.T) {
	tests := []struct {
		mode   protocol.Mode
		cmd    string
		runs   bool
		asks   bool
		refuse string
	}{
		{protocol.ModePlan, "ls", true, false, ""},
		{protocol.ModePlan, "touch made", false, false, "plan mode"},
		{protocol.ModeDryRun, "git status 2>&1; ls", true, false, ""},
		{protocol.ModeDryRun, "touch made", false, false, "dryRun mode"},
		{protocol.ModeAcceptEdits, "touch made", true, true, ""},
		{protocol.ModeBypass, "touch made", true, false, ""},
		{protocol.ModeDefault, "touch made", true, true, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+" "+tt.cmd, func(t *testing.T) {
			h := newHarness(t)
			h.env.Settings.Mode = tt.mode
			r := h.call("shell", map[string]any{"command": tt.cmd})
			if tt.refuse != "" {
				if !r.IsError || !strings.Contains(r.Content, tt.refuse) || !strings.Contains(r.Content, "did not run") {
					t.Errorf("result = %+v, want a refusal naming %s", r, tt.refuse)
				}
			} else if r.IsError {
				t.Errorf("result = %+v", r)
			}
			if tt.cmd == "touch made" && h.made("made") != tt.runs {
				t.Errorf("ran = %v, want %v", h.made("made"), tt.runs)
			}
			if asked := len(h.host.requests) > 0; asked != tt.asks {
				t.Errorf("asked = %v, want %v", asked, tt.asks)
			}
		})
	}
}

func TestShellPreviewRunsNothing(t *testing.T) {
	tests := []struct {
		cmd     string
		trusted bool
		asks    bool
	}{
		{"touch made", false, true},
		{"git status", false, false},
		{"make test", false, true},
		{"make test", true, false},
	}
	for _, tt := range tests {
		h := newHarness(t)
		h.env.Trusted = tt.trusted
		h.write("Makefile", "test:\n\ttouch made\n")
		r := h.previewShell("shell", map[string]any{"command": tt.cmd})
		if r.NeedsApproval != tt.asks || !strings.HasPrefix(r.Title, "Run") {
			t.Errorf("preview of %q (trusted %v) = %+v, want NeedsApproval %v", tt.cmd, tt.trusted, r, tt.asks)
		}
		if h.made("made") || len(h.host.requests) != 0 {
			t.Errorf("a preview ran or asked")
		}
	}
}

func TestShellTrustedProjectRunsItsTests(t *testing.T) {
	h := newHarness(t)
	h.write("Makefile", "test:\n\t@echo tests passed\n")
	h.env.Trusted = true
	out := h.ok("shell", map[string]any{"command": "make test"})
	if !strings.Contains(out, "tests passed") || len(h.host.requests) != 0 {
		t.Errorf("trusted make test: output %q, requests %d", out, len(h.host.requests))
	}
	h.env.Trusted = false
	h.ok("shell", map[string]any{"command": "make test"})
	if len(h.host.requests) != 1 {
		t.Errorf("an untrusted project's tests ran without asking")
	}
}

// The repository's own configuration must not run programs through the
// allow-listed git forms.
func TestShellGitRunsHardened(t *testing.T) {
	h := newHarness(t)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = h.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", ".")
	h.write("a.txt", "one\n")
	git("add", "a.txt")
	git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x")
	hook := "#!/bin/sh\ntouch \"" + h.dir + "/RAN_$1\"\necho /\n"
	for _, name := range []string{"mon.sh", "ext.sh", "conv.sh"} {
		h.write(name, strings.Replace(hook, "$1", strings.TrimSuffix(name, ".sh"), 1))
		os.Chmod(filepath.Join(h.dir, name), 0o755)
	}
	git("config", "core.fsmonitor", filepath.Join(h.dir, "mon.sh"))
	git("config", "diff.external", filepath.Join(h.dir, "ext.sh"))
	git("config", "diff.conv.textconv", filepath.Join(h.dir, "conv.sh"))
	h.write(".gitattributes", "*.txt diff=conv\n")
	h.write("a.txt", "two\n")
	for _, cmd := range []string{"git status", "git diff", "git log -p -1", "git show HEAD"} {
		h.ok("shell", map[string]any{"command": cmd})
	}
	if len(h.host.requests) != 0 {
		t.Errorf("git's read-only forms asked")
	}
	for _, marker := range []string{"RAN_mon", "RAN_ext", "RAN_conv"} {
		if h.made(marker) {
			t.Errorf("a helper named by the repository ran (%s)", marker)
		}
	}
}

func TestShellBadInput(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"empty", map[string]any{"command": ""}, "command"},
		{"blank", map[string]any{"command": "  \n "}, "command is empty"},
		{"missing", map[string]any{}, "command"},
		{"zero timeout", map[string]any{"command": "echo", "timeout": 0}, "positive"},
		{"negative timeout", map[string]any{"command": "echo", "timeout": -3}, "positive"},
		{"timeout too small", map[string]any{"command": "echo", "timeout": 1e-12}, "too small"},
		{"timeout not a number", map[string]any{"command": "echo", "timeout": "soon"}, "timeout"},
		{"NUL byte", map[string]any{"command": "echo a\x00b"}, "NUL"},
		{"unknown argument", map[string]any{"command": "echo", "cwd": "/"}, "cwd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			msg := h.fail("shell", tt.args)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("message = %q, want it to mention %q", msg, tt.want)
			}
			if len(h.host.requests) != 0 {
				t.Errorf("bad input reached the approval")
			}
		})
	}
}

func TestShellTimeout(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	r := h.call("shell", map[string]any{"command": "echo started; sleep 1000", "timeout": 0.3})
	if !r.IsError || !strings.Contains(r.Content, "started") || !strings.Contains(r.Content, "timeout of 0.3 seconds") {
		t.Errorf("result = %+v", r)
	}
	r = h.call("shell", map[string]any{"command": "echo quick", "timeout": 100000})
	if r.IsError || !strings.Contains(r.Content, "lowered to 600 seconds") {
		t.Errorf("clamped result = %+v", r)
	}
}

func TestShellCancelStopsTheCommand(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for deadline := time.Now().Add(10 * time.Second); !h.made("started") && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	raw, _ := json.Marshal(map[string]any{"command": "touch started; sleep 1000; touch finished"})
	r := h.reg.Invoke(ctx, &tool.Call{Name: "shell", Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env})
	if !r.IsError || !strings.Contains(r.Content, "cancelled by the client") || h.made("finished") {
		t.Errorf("result = %+v", r)
	}
}

func TestShellOutputIsBounded(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    []string
	}{
		{"two million lines keep both ends", "seq 1 2000000; echo FAILED: the end >&2; exit 2", []string{"1\n2\n3\n", "1999999\n2000000\nFAILED: the end\n", "omitted", "exit code 2"}},
		{"binary is not shown", `head -c 5000 /dev/zero`, []string{"binary data", "4.9 KB", "exit code 0"}},
		{"no output", "true", []string{"(no output)", "exit code 0"}},
		{"colours stripped", `printf '\033[32mok\033[0m\n'`, []string{"ok\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.env.Settings.Mode = protocol.ModeBypass
			r := h.call("shell", map[string]any{"command": tt.command})
			for _, w := range tt.want {
				if !strings.Contains(r.Content, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Content[:min(len(r.Content), 300)])
				}
			}
			if max := tool.NewBudget(0, 0).OutputChars(); len(r.Content) > max {
				t.Errorf("output is %d bytes, over the budget of %d", len(r.Content), max)
			}
			if strings.Contains(r.Content, "\x1b") {
				t.Errorf("terminal escapes were kept")
			}
		})
	}
}

func TestShellStopsWhatTheCommandLeftRunning(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	// The duration tells this sleep from any other; its pid inside the
	// sandbox means nothing outside it.
	out := h.ok("shell", map[string]any{"command": "sleep 1000.4242 & echo started"})
	if !strings.Contains(out, "1 process(es) it left running were stopped") {
		t.Errorf("output = %q", out)
	}
	if pids := processesRunning("sleep", "1000.4242"); len(pids) > 0 {
		t.Errorf("the background child is still running: pids %v", pids)
	}
}

// A preview says what the call would ask, as the approval would show it, so
// that an editor can ask up front; an allowed command says nothing.
func TestShellPreviewNamesTheApproval(t *testing.T) {
	h := newHarness(t)
	h.shellRules()
	raw, _ := json.Marshal(map[string]any{"command": "touch made.txt && git add made.txt"})
	c := &tool.Call{Name: "shell", Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env, Prepare: true}
	r := h.reg.Invoke(context.Background(), c)
	if !r.NeedsApproval || c.Asks == nil {
		t.Fatalf("preview = %+v, asks %+v", r, c.Asks)
	}
	a := c.Asks
	if a.Kind != protocol.ApprovalShell || a.Command != "touch made.txt && git add made.txt" || a.Tool != "shell" ||
		a.AlwaysScope != "run touch and git add without asking in this project, in the sandbox, without network access" || !strings.HasPrefix(a.Title, "Run touch and git add:") {
		t.Errorf("asks = %+v", a)
	}
	if len(h.host.requests) != 0 {
		t.Errorf("a preview asked the user: %+v", h.host.requests)
	}
	raw, _ = json.Marshal(map[string]any{"command": "ls"})
	c = &tool.Call{Name: "shell", Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env, Prepare: true}
	if r := h.reg.Invoke(context.Background(), c); r.NeedsApproval || c.Asks != nil {
		t.Errorf("ls: preview %+v asks %+v", r, c.Asks)
	}
}
