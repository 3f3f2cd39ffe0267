package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/shell/cmdline"
	"github.com/tether-dev/tether/protocol"
)

// allows asks the rules about a command line, as the shell tool does.
func allows(r *Rules, command string, network, sandboxed bool) bool {
	a := cmdline.Analyze(command)
	req := protocol.ApprovalRequestParams{Kind: protocol.ApprovalShell, Command: command, Network: network || len(a.Network) > 0, Sandbox: &sandboxed}
	return r.Allows(req, a.Invocations)
}

func TestShellRulesScopeToProgramAndSubcommand(t *testing.T) {
	r, _ := LoadRules("")
	for _, cmd := range []string{"git status", "npm test", "ls"} {
		for _, v := range cmdline.Analyze(cmd).Invocations {
			must(t, r.Add(ShellRule(v, false)))
		}
	}
	must(t, r.Add(ShellRule(cmdline.Invocation{Program: "npm", Subcommand: "ci"}, true)))
	for _, tt := range []struct {
		command string
		network bool
		want    bool
	}{
		{"git status --short", false, true},
		{"git status && ls -la", false, true},
		{"git push --force", false, false},
		{"git clean -fdx", false, false},
		{"git checkout -- .", false, false},
		{"git -c alias.status='!rm -rf ~' status", false, false},
		{"git $SUB", false, false},
		{"git", false, false},
		{"npm test -- --watch=false", false, true},
		{"npm test", true, false}, // saved without network
		{"npm ci", false, true},   // a network rule covers a run without
		{"npm ci --silent", true, true},
		{"npm install left-pad", true, false},
		{"ls /", false, true},
		{"rm -rf x", false, false},
	} {
		if got := allows(r, tt.command, tt.network, true); got != tt.want {
			t.Errorf("%q (network %v): allowed = %v, want %v", tt.command, tt.network, got, tt.want)
		}
	}
	if allows(r, "git status", false, false) {
		t.Error("a command outside the sandbox was let through by a saved rule")
	}
}

// A rule saved before subcommands and the sandbox (program only, no
// network field) keeps allowing what it allowed.
func TestOldProgramRulesKeepWorking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.json")
	old := `{"rules": [{"kind": "shell", "program": "git", "added": "2026-01-02T03:04:05Z"}]}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git status", "git push", "git -C sub log", "git pull --rebase"} {
		if !allows(r, cmd, false, true) {
			t.Errorf("the old rule for git no longer allows %q", cmd)
		}
	}
	if allows(r, "git status; rm -rf x", false, true) {
		t.Error("the old rule for git allowed rm")
	}
	if got := r.List()[0].String(); !strings.Contains(got, "any subcommand") || !strings.Contains(got, "with or without network") {
		t.Errorf("the old rule reads %q", got)
	}
	// Saving a new, narrower rule does not change the old one.
	must(t, r.Add(ShellRule(cmdline.Invocation{Program: "git", Subcommand: "status"}, false)))
	again, _ := LoadRules(path)
	if len(again.List()) != 2 || again.List()[0].Network != nil || again.List()[0].Subcommand != "" {
		t.Errorf("rules after adding one: %+v", again.List())
	}
}

// A rule carries examples, checked when the rules load: one that fails
// them is disabled and says why, and allows nothing.
func TestRuleExamplesAreCheckedOnLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.json")
	doc := `{"rules": [
  {"kind": "shell", "program": "go", "subcommand": "test", "network": false,
   "match": ["go test ./...", "go test -run X ./pkg"], "notMatch": ["go run .", "go test ./... && rm -rf /"], "added": "2026-01-02T03:04:05Z"},
  {"kind": "shell", "program": "make", "network": false,
   "match": ["make test"], "notMatch": ["make deploy"], "added": "2026-01-02T03:04:05Z"},
  {"kind": "shell", "program": "cargo", "subcommand": "build", "network": false,
   "match": ["cargo test"], "added": "2026-01-02T03:04:05Z"}
]}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	rules := r.List()
	if rules[0].Broken != "" {
		t.Errorf("a rule that holds its examples is disabled: %s", rules[0].Broken)
	}
	if !strings.Contains(rules[1].Broken, `"make deploy" should not be allowed`) {
		t.Errorf("make's too wide rule: Broken = %q", rules[1].Broken)
	}
	if !strings.Contains(rules[2].Broken, `"cargo test" should be allowed`) {
		t.Errorf("cargo's wrong example: Broken = %q", rules[2].Broken)
	}
	if !allows(r, "go test ./...", false, true) || allows(r, "make test", false, true) || allows(r, "cargo build", false, true) {
		t.Error("a disabled rule allows something, or a sound one does not")
	}
	if !strings.Contains(rules[1].String(), "disabled") {
		t.Errorf("a disabled rule reads %q", rules[1].String())
	}
}

func TestRemoveOneRule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.json")
	r, _ := LoadRules(path)
	status := ShellRule(cmdline.Invocation{Program: "git", Subcommand: "status"}, false)
	must(t, r.Add(status))
	must(t, r.Add(ShellRule(cmdline.Invocation{Program: "git", Subcommand: "log"}, false)))
	must(t, r.Add(Rule{Kind: protocol.ApprovalFetch, Host: "go.dev"}))
	// Another window removes it: this one must not write it back.
	other, _ := LoadRules(path)
	n, err := other.Remove(status)
	if err != nil || n != 1 {
		t.Fatalf("Remove = %d, %v", n, err)
	}
	again, _ := LoadRules(path)
	if len(again.List()) != 2 || allows(again, "git status", false, true) || !allows(again, "git log", false, true) {
		t.Errorf("after removing git status: %+v", again.List())
	}
	if n, _ := other.Remove(status); n != 0 {
		t.Errorf("removing it again removed %d", n)
	}
	// The first window (a running daemon) stops allowing it at once, and
	// its next save does not bring it back.
	if allows(r, "git status", false, true) {
		t.Error("a rule removed elsewhere still allows in a running window")
	}
	must(t, r.Add(ShellRule(cmdline.Invocation{Program: "go", Subcommand: "vet"}, false)))
	if final, _ := LoadRules(path); allows(final, "git status", false, true) || len(final.List()) != 3 {
		t.Errorf("the removed rule came back: %+v", final.List())
	}
}
