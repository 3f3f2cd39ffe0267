package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/shell/cmdline"
	"github.com/tether-dev/tether/protocol"
)

// programsOnly turns program names into invocations without subcommands.
func programsOnly(names []string) []cmdline.Invocation {
	var out []cmdline.Invocation
	for _, n := range names {
		out = append(out, cmdline.Invocation{Program: n})
	}
	return out
}

func TestRulesSurviveReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p", "allow.json")
	r, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	must(t, r.Add(Rule{Kind: protocol.ApprovalShell, Program: "go"}))
	must(t, r.Add(Rule{Kind: protocol.ApprovalShell, Program: "go"}))
	must(t, r.Add(Rule{Kind: protocol.ApprovalFetch, Host: "pkg.go.dev"}))
	again, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.List(); len(got) != 2 || got[0].Program != "go" || got[1].Host != "pkg.go.dev" {
		t.Fatalf("reloaded %+v", got)
	}
	must(t, again.Reset())
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("reset left allow.json behind")
	}
}

func TestRulesMergeAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.json")
	a, _ := LoadRules(path)
	b, _ := LoadRules(path)
	must(t, a.Add(Rule{Kind: protocol.ApprovalShell, Program: "make"}))
	must(t, b.Add(Rule{Kind: protocol.ApprovalShell, Program: "npm"}))
	c, _ := LoadRules(path)
	if len(c.List()) != 2 {
		t.Fatalf("second window lost the first's rule: %+v", c.List())
	}
}

func TestRulesScope(t *testing.T) {
	r, _ := LoadRules("")
	must(t, r.Add(Rule{Kind: protocol.ApprovalShell, Program: "go"}))
	must(t, r.Add(Rule{Kind: protocol.ApprovalFetch, Host: "example.com"}))
	must(t, r.Add(Rule{Kind: protocol.ApprovalOutside, Dir: "/opt/lib"}))
	shell := protocol.ApprovalRequestParams{Kind: protocol.ApprovalShell}
	tests := []struct {
		name     string
		req      protocol.ApprovalRequestParams
		programs []string
		want     bool
	}{
		{"allowed program", shell, []string{"go"}, true},
		{"one program not allowed", shell, []string{"go", "rm"}, false},
		{"no programs known", shell, nil, false},
		{"host", protocol.ApprovalRequestParams{Kind: protocol.ApprovalFetch, Host: "EXAMPLE.com"}, nil, true},
		{"subdomain is another host", protocol.ApprovalRequestParams{Kind: protocol.ApprovalFetch, Host: "evil.example.com"}, nil, false},
		{"edits not allowed", protocol.ApprovalRequestParams{Kind: protocol.ApprovalEdit}, nil, false},
		// A folder outside is judged by AllowsDir, on its real path.
		{"outside by path", protocol.ApprovalRequestParams{Kind: protocol.ApprovalOutside, Path: "/opt/lib/x.h"}, nil, false},
	}
	for _, tt := range tests {
		if got := r.Allows(tt.req, programsOnly(tt.programs)); got != tt.want {
			t.Errorf("%s: Allows = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// "Always" for a folder outside the workspace is that one folder: not its
// parent, not a sibling that starts with its name, not its subfolders.
func TestRulesOutsideFolderIsExactlyOne(t *testing.T) {
	r, _ := LoadRules("")
	dir := filepath.Join(string(filepath.Separator)+"opt", "lib")
	must(t, r.Add(Rule{Kind: protocol.ApprovalOutside, Dir: dir}))
	for d, want := range map[string]bool{
		dir:                              true,
		dir + string(filepath.Separator): true,
		dir + "-evil":                    false,
		dir + "rary":                     false,
		filepath.Join(dir, "sub"):        false,
		filepath.Dir(dir):                false,
		filepath.Join(dir, "sub", ".."):  true,
		filepath.Join(dir, "..", "lib2"): false,
		"":                               false,
	} {
		if got := r.AllowsDir(d); got != want {
			t.Errorf("AllowsDir(%q) = %v, want %v", d, got, want)
		}
	}
	if err := r.Add(Rule{Kind: protocol.ApprovalOutside}); err == nil {
		t.Error("a folder rule without a folder was saved")
	}
	if err := r.Add(Rule{Kind: protocol.ApprovalOutside, Dir: "relative/dir"}); err == nil {
		t.Error("a folder rule with a relative folder was saved")
	}
	if got := (Rule{Kind: protocol.ApprovalOutside, Dir: dir}).String(); !strings.Contains(got, dir) || !strings.Contains(got, "not its subfolders") {
		t.Errorf("described as %q", got)
	}
}

func TestCorruptRulesFileIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.json")
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, err := LoadRules(path); err == nil || !strings.Contains(err.Error(), "--reset") {
		t.Fatalf("err = %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A rule saved or a reset made by another process is followed: each
// process of the project (the editor's daemon, tether mcp, tether call)
// reads allow.json again when it changed.
func TestRulesFollowOtherProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.json")
	a, _ := LoadRules(path)
	b, _ := LoadRules(path)
	must(t, a.Add(Rule{Kind: protocol.ApprovalOutside, Dir: "/opt/lib"}))
	if !b.AllowsDir("/opt/lib") {
		t.Fatal("a rule saved by another process is not followed")
	}
	must(t, a.Reset())
	if b.AllowsDir("/opt/lib") || len(b.List()) != 0 {
		t.Fatal("a reset by another process is not followed")
	}
}
