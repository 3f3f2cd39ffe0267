package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/tool"
)

// templateAction matches a text/template action: what the code fills in.
var templateAction = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// notQuantities are words with digits that state no number the code could
// change.
var notQuantities = []string{"1-based", "UTF-8"}

// TestDescriptionNumbersComeFromCode fails when a tool's description
// states a number typed into its Markdown instead of filled in from code.
func TestDescriptionNumbersComeFromCode(t *testing.T) {
	docs, err := filepath.Glob("*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no descriptions found: %v", err)
	}
	digit := regexp.MustCompile(`[0-9]+`)
	for _, name := range docs {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text := templateAction.ReplaceAllString(string(src), "")
		for _, w := range notQuantities {
			text = strings.ReplaceAll(text, w, "")
		}
		for _, line := range strings.Split(text, "\n") {
			if n := digit.FindString(line); n != "" {
				t.Errorf("%s states the number %s in %q; fill it in from the code (Def.Data)", name, n, strings.TrimSpace(line))
			}
		}
	}
	// The check itself: a typed number is caught, a filled-in one is not.
	if digit.FindString(templateAction.ReplaceAllString("at most {{.Max}} lines", "")) != "" ||
		digit.FindString(templateAction.ReplaceAllString("at most 500 lines", "")) == "" {
		t.Fatal("the number check does not work")
	}
}

// Every tool has its description beside it, and it renders.
func TestEveryToolHasARenderedDescription(t *testing.T) {
	for _, tl := range Builtin().Tools() {
		name := tl.Name()
		if _, err := os.Stat(name + ".md"); err != nil {
			t.Errorf("%s: no %s.md beside it: %v", name, name, err)
		}
		for _, s := range []*tool.Settings{nil, {ShellTimeout: 7 * time.Minute}} {
			d := tl.Info(s).Description
			if d == "" || strings.Contains(d, "<no value>") || strings.Contains(d, "{{") {
				t.Errorf("%s: description %q", name, d)
			}
		}
	}
}

// A number a setting changes is rendered from the setting.
func TestShellDescriptionFollowsTheTimeoutSetting(t *testing.T) {
	def := Shell.Info(nil).Description
	if !strings.Contains(def, "2 minutes (unless the user's settings change that default)") {
		t.Errorf("default description: %q", def)
	}
	set := Shell.Info(&tool.Settings{ShellTimeout: 7 * time.Minute}).Description
	if !strings.Contains(set, "stopped after 7 minutes unless") || strings.Contains(set, "2 minutes") {
		t.Errorf("with shellTimeout 7 minutes: %q", set)
	}
}
