package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
)

func TestListDirEntries(t *testing.T) {
	h := newHarness(t)
	h.write("b.txt", "")
	h.write("a/inner.txt", "")
	h.write(".hidden", "")
	h.write("node_modules/x.js", "")
	h.write(".gitignore", "node_modules/\n")
	for _, link := range []struct{ target, name string }{
		{"a", "dirlink"},
		{"b.txt", "filelink"},
		{"missing", "broken"},
	} {
		if err := os.Symlink(link.target, filepath.Join(h.dir, link.name)); err != nil {
			t.Fatal(err)
		}
	}
	mkfifo(t, filepath.Join(h.dir, "pipe"))
	got := h.ok("list_dir", map[string]any{})
	want := ".gitignore\n.hidden\na/\nb.txt\nbroken -> missing (broken link)\ndirlink/ -> a\nfilelink -> b.txt\nnode_modules/\npipe (named pipe)\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := h.ok("list_dir", map[string]any{"path": "a"}); got != "inner.txt\n" {
		t.Fatalf("got %q", got)
	}
	if got := h.ok("list_dir", map[string]any{"path": "dirlink"}); got != "inner.txt\n" {
		t.Fatalf("through a link: got %q", got)
	}
}

func TestListDirEmpty(t *testing.T) {
	h := newHarness(t)
	if got := h.ok("list_dir", map[string]any{}); got != "the workspace folder is empty." {
		t.Fatalf("got %q", got)
	}
	if err := os.Mkdir(filepath.Join(h.dir, "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := h.ok("list_dir", map[string]any{"path": "e"}); got != "e is empty." {
		t.Fatalf("got %q", got)
	}
}

func TestListDirRefusals(t *testing.T) {
	h := newHarness(t)
	h.write("sub/f.txt", "x")
	for _, tc := range []struct{ path, want string }{
		{"nope", "nope does not exist. List its parent folder"},
		{"sub/f.txt", "sub/f.txt is a file, not a folder. Read it with read_file, or list its folder sub"},
		{"~/x", "not expanded"},
	} {
		if msg := h.fail("list_dir", map[string]any{"path": tc.path}); !strings.Contains(msg, tc.want) {
			t.Errorf("%q: %s (want %q)", tc.path, msg, tc.want)
		}
	}
}

func TestListDirCappedAtBudget(t *testing.T) {
	h := newHarness(t)
	for i := range 400 {
		h.write(fmt.Sprintf("file-with-a-longish-name-%03d.txt", i), "")
	}
	for i := range 10 {
		if err := os.Mkdir(filepath.Join(h.dir, fmt.Sprintf("zdir%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	budget := tool.Budget{Tokens: 1000}
	r := h.reg.Invoke(context.Background(), &tool.Call{Name: "list_dir", Args: []byte(`{}`), Budget: budget, Session: h.sess, Env: h.env})
	if r.IsError || len(r.Content) > budget.OutputChars() {
		t.Fatalf("error=%v, %d bytes for %d", r.IsError, len(r.Content), budget.OutputChars())
	}
	shown := strings.Count(r.Content, ".txt\n")
	note := fmt.Sprintf("[%d more entries not shown (10 folders, %d others)", 410-shown, 400-shown)
	if !strings.HasPrefix(r.Content, "file-with-a-longish-name-000.txt\n") || !strings.Contains(r.Content, note) {
		t.Fatalf("want %q in %q", note, r.Content[len(r.Content)-300:])
	}
}
