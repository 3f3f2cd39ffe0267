package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
)

func TestGlobPatterns(t *testing.T) {
	h := searchProject(t)
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		// No slash: file names at any depth.
		{map[string]any{"pattern": "*.go"}, []string{"lib/deep/er/x.go", "lib/util.go", "main.go"}},
		// A slash: the whole path, so * stays in one folder.
		{map[string]any{"pattern": "lib/*.go"}, []string{"lib/util.go"}},
		{map[string]any{"pattern": "lib/**/*.go"}, []string{"lib/deep/er/x.go", "lib/util.go"}},
		{map[string]any{"pattern": "**/*.{md,yml}"}, []string{".github/workflows/ci.yml", "docs/guide.md"}},
		{map[string]any{"pattern": "docs/"}, []string{"docs/guide.md"}},
		{map[string]any{"pattern": "!*.go"}, []string{".github/workflows/ci.yml", ".gitignore", "docs/guide.md"}},
		// Relative to path.
		{map[string]any{"pattern": "deep/**", "path": "lib"}, []string{"lib/deep/er/x.go"}},
		{map[string]any{"pattern": "*", "path": "lib/deep"}, []string{"lib/deep/er/x.go"}},
	} {
		got := splitOutput(h.ok("glob", tc.args))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestGlobHonoursGitignoreWithoutGit(t *testing.T) {
	h := searchProject(t)
	for _, pattern := range []string{"*.log", "*.js", "node_modules/**/*.js"} {
		if pattern == "node_modules/**/*.js" {
			// Spelling out an ignored folder lists it, as path does.
			if got := h.ok("glob", map[string]any{"pattern": pattern}); got != "node_modules/pkg/i.js\n" {
				t.Errorf("%s: %q", pattern, got)
			}
			continue
		}
		got := h.ok("glob", map[string]any{"pattern": pattern})
		if !strings.HasPrefix(got, "No files match") {
			t.Errorf("%s listed ignored files: %q", pattern, got)
		}
	}
}

func TestGlobHiddenInGitOut(t *testing.T) {
	h := searchProject(t)
	got := h.ok("glob", map[string]any{"pattern": "**"})
	want := ".github/workflows/ci.yml\n.gitignore\ndocs/guide.md\nlib/deep/er/x.go\nlib/util.go\nmain.go\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := h.ok("glob", map[string]any{"pattern": "config"}); !strings.HasPrefix(got, "No files match") {
		t.Fatalf(".git/config listed: %q", got)
	}
}

func TestGlobStopsAtMaxResults(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	for i := range 30 {
		h.write(fmt.Sprintf("f%02d.txt", i), "")
	}
	// The first five of the sorted list, whatever order the walk found
	// them in, and how many more there were.
	got := splitOutput(h.ok("glob", map[string]any{"pattern": "*.txt", "max_results": 5}))
	want := []string{"f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"}
	if len(got) != 6 || !slices.Equal(got[:5], want) || !strings.Contains(got[5], "the first 5 of 30 paths in sorted order (max_results=5); 25 more match") {
		t.Fatalf("got %q", got)
	}
	// Within the limit: no note.
	if got := splitOutput(h.ok("glob", map[string]any{"pattern": "f0*.txt", "max_results": 10})); len(got) != 10 || got[9] != "f09.txt" {
		t.Fatalf("got %q", got)
	}
	// The default is 500, the cap 5000.
	if msg := h.fail("glob", map[string]any{"pattern": "*", "max_results": 5001}); !strings.Contains(msg, "max_results") {
		t.Fatal(msg)
	}
}

// The case: a1 to a5 with max_results 2 gives a1 and a2, never
// whichever two the parallel walk met first. Repeated, since a walk in
// the wrong order is only sometimes wrong.
func TestGlobCutsTheSortedList(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	for i := 1; i <= 5; i++ {
		h.write(fmt.Sprintf("d%d/a%d", i, i), "")
	}
	for range 10 {
		h.sess = tool.NewSession() // the same call again is not a loop here
		got := splitOutput(h.ok("glob", map[string]any{"pattern": "a*", "max_results": 2}))
		if len(got) != 3 || got[0] != "d1/a1" || got[1] != "d2/a2" || !strings.Contains(got[2], "3 more match") {
			t.Fatalf("got %q", got)
		}
	}
}

func TestGlobStopsAtOutputBudget(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	for i := range 300 {
		h.write(fmt.Sprintf("a-rather-long-folder-name/with-a-long-file-name-%03d.txt", i), "")
	}
	budget := tool.Budget{Tokens: 500}
	r := h.reg.Invoke(context.Background(), &tool.Call{Name: "glob", Args: []byte(`{"pattern":"*.txt"}`), Budget: budget, Session: h.sess, Env: h.env})
	if r.IsError || len(r.Content) > budget.OutputChars() || !strings.Contains(r.Content, "the output budget is full") {
		t.Fatalf("%d bytes (budget %d): %q", len(r.Content), budget.OutputChars(), r.Content)
	}
}

func TestGlobRefusals(t *testing.T) {
	h := searchProject(t)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "*.go", "path": "main.go"}, "is a file, not a folder"},
		{map[string]any{"pattern": "*.go", "path": "missing"}, "missing does not exist"},
		{map[string]any{"pattern": "[a"}, "invalid pattern"},
		{map[string]any{"pattern": ""}, "pattern"},
		{map[string]any{"path": "lib"}, "pattern"},
	} {
		if msg := h.fail("glob", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %s (want %q)", tc.args, msg, tc.want)
		}
	}
}
