package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
)

func TestDecide(t *testing.T) {
	read := Action{Tool: "read_file"}
	readOut := Action{Tool: "read_file", Outside: true}
	edit := Action{Tool: "edit_file", Changes: true}
	editOut := Action{Tool: "edit_file", Changes: true, Outside: true}
	editSens := Action{Tool: "edit_file", Changes: true, Sensitive: true}
	memory := Action{Tool: "remember", Changes: true, Memory: true}
	memoryWeb := Action{Tool: "remember", Changes: true, Memory: true, Untrusted: true}
	tests := []struct {
		mode protocol.Mode
		a    Action
		want Decision
	}{
		{protocol.ModeDefault, read, Allow},
		{protocol.ModeDefault, readOut, Ask},
		{protocol.ModeDefault, edit, Ask},
		{protocol.ModeAcceptEdits, edit, Allow},
		{protocol.ModeAcceptEdits, editOut, Ask},
		{protocol.ModeAcceptEdits, editSens, Ask},
		{protocol.ModePlan, read, Allow},
		{protocol.ModePlan, edit, Deny},
		{protocol.ModePlan, readOut, Ask},
		{protocol.ModeBypass, editOut, Allow},
		{protocol.ModeBypass, editSens, Allow},
		// A memory write is a medium-risk change in a confined store, not a
		// file edit: acceptEdits does not exempt it. After web content it
		// asks in every mode but plan, which refuses it.
		{protocol.ModeDefault, memory, Ask},
		{protocol.ModeAcceptEdits, memory, Ask},
		{protocol.ModeBypass, memory, Allow},
		{protocol.ModePlan, memory, Deny},
		{protocol.ModeDefault, memoryWeb, Ask},
		{protocol.ModeAcceptEdits, memoryWeb, Ask},
		{protocol.ModeBypass, memoryWeb, Ask},
		{protocol.ModeDryRun, memoryWeb, Ask},
		{protocol.ModePlan, memoryWeb, Deny},
	}
	for _, tt := range tests {
		if got, _ := Decide(tt.mode, tt.a); got != tt.want {
			t.Errorf("Decide(%s, %+v) = %v, want %v", tt.mode, tt.a, got, tt.want)
		}
	}
}

func TestSensitive(t *testing.T) {
	root := "/w/proj"
	for path, want := range map[string]bool{
		"/w/proj/main.go":                                  false,
		"/w/proj/.git/config":                              true,
		"/w/proj/.vscode/settings.json":                    true,
		"/w/proj/.claude/settings.json":                    true,
		"/w/proj/docs/.vscode-notes.md":                    false,
		"/w/proj/.github/workflows/ci.yml":                 true,
		"/w/proj/.github/ISSUE_TEMPLATE.md":                false,
		"/w/proj/.GitHub/Workflows/x.yml":                  true,
		"/w/proj/.github/actions/a/action.yml":             true,
		"/w/proj/.envrc":                                   true,
		"/w/proj/sub/.envrc":                               true,
		"/w/proj/.gitmodules":                              true,
		"/w/proj/.gitattributes":                           true,
		"/w/proj/lib/.gitattributes":                       true,
		"/w/proj/.GIT/hooks/pre-commit":                    true,
		"/w/proj/.githooks/pre-push":                       true,
		"/w/proj/.husky/pre-commit":                        true,
		"/w/proj/.pre-commit-config.yaml":                  true,
		"/w/proj/.gitlab-ci.yml":                           true,
		"/w/proj/Jenkinsfile":                              true,
		"/w/proj/jenkinsfile":                              true,
		"/w/proj/.circleci/config.yml":                     true,
		"/w/proj/.npmrc":                                   true,
		"/w/proj/.yarnrc.yml":                              true,
		"/w/proj/.cargo/config.toml":                       true,
		"/w/proj/gradle/wrapper/gradle-wrapper.properties": true,
		"/w/proj/gradle/libs.versions.toml":                false,
		"/w/proj/Makefile":                                 false,
		"/w/proj/package.json":                             false,
		"/w/proj/.env.example":                             false,
		"/w/proj/src/envrc.go":                             false,
		"/w/proj-sibling/.envrc":                           false,
	} {
		if got := Sensitive(filepath.FromSlash(path), []string{root}); got != want {
			t.Errorf("Sensitive(%s) = %v, want %v", path, got, want)
		}
	}
}

// A dotfile of the home folder is sensitive wherever the workspace is,
// but a workspace that itself lives in a hidden folder of the home folder
// (a dotfiles repository, a checkout under ~/.cache) is judged like any
// other: its ordinary files are not sensitive, its own .git and .vscode
// are, and the rest of that hidden folder still is.
func TestSensitiveUnderTheHomeFolder(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	for _, c := range []struct {
		path  string
		roots []string
		want  bool
	}{
		{"/home/u/.bashrc", []string{"/home/u/proj"}, true},
		{"/home/u/.ssh/config", []string{"/home/u/proj"}, true},
		{"/home/u/proj/main.go", []string{"/home/u/proj"}, false},
		{"/home/u/.cache/ws/notes.txt", []string{"/home/u/.cache/ws"}, false},
		{"/home/u/.cache/ws/sub/a.go", []string{"/home/u/.cache/ws"}, false},
		{"/home/u/.cache/ws/.vscode/settings.json", []string{"/home/u/.cache/ws"}, true},
		{"/home/u/.cache/ws/.git/config", []string{"/home/u/.cache/ws"}, true},
		{"/home/u/.cache/other/x", []string{"/home/u/.cache/ws"}, true},
		{"/home/u/.cache-evil/x", []string{"/home/u/.cache"}, true},
		{"/home/u/.dotfiles/vimrc", []string{"/home/u/.dotfiles"}, false},
		{"/home/u/.bashrc", []string{"/home/u"}, true},
		{"/home/u/.bashrc", []string{"/home/u/.cache/ws"}, true},
	} {
		var roots []string
		for _, r := range c.roots {
			roots = append(roots, filepath.FromSlash(r))
		}
		if got := sensitiveFrom(filepath.FromSlash(c.path), roots, home); got != c.want {
			t.Errorf("sensitive(%s, roots %v) = %v, want %v", c.path, c.roots, got, c.want)
		}
	}
}

// TestSensitiveListIsDocumented keeps docs/guarantees.md's list of
// sensitive paths in step with the code.
func TestSensitiveListIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "guarantees.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Sensitive paths\n")
	if !ok {
		t.Fatal("docs/guarantees.md has no Sensitive paths section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, list := range [][]string{SensitiveDirs, SensitivePaths, SensitiveFiles} {
		for _, name := range list {
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("docs/guarantees.md does not list the sensitive path `%s`", name)
			}
		}
	}
}
