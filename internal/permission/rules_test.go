package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
)

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
		{"file in folder", protocol.ApprovalRequestParams{Kind: protocol.ApprovalOutside, Path: "/opt/lib/x.h"}, nil, true},
		{"sibling folder", protocol.ApprovalRequestParams{Kind: protocol.ApprovalOutside, Path: "/opt/library/x.h"}, nil, false},
		{"edits not allowed", protocol.ApprovalRequestParams{Kind: protocol.ApprovalEdit}, nil, false},
	}
	for _, tt := range tests {
		if got := r.Allows(tt.req, tt.programs); got != tt.want {
			t.Errorf("%s: Allows = %v, want %v", tt.name, got, tt.want)
		}
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
