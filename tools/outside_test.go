package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/protocol"
)

// outsideTree makes, outside the workspace, a folder lib with a file, a
// subfolder and a link to a third folder, and a sibling lib-evil.
func outsideTree(t *testing.T) (lib string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lib = filepath.Join(root, "lib")
	for rel, body := range map[string]string{
		"lib/a.h": "a\n", "lib/b.h": "b\n", "lib/sub/c.h": "c\n",
		"lib-evil/d.h": "d\n", "elsewhere/e.h": "e\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere", "e.h"), filepath.Join(lib, "link.h")); err != nil {
		t.Fatal(err)
	}
	return lib
}

// "Always" on a read outside the workspace is saved for that one folder,
// real path: the next file there is read unasked; its subfolders, a
// sibling that starts with its name, and a link in it that leads
// elsewhere are asked about again. The rule is listed, and reset forgets it.
func TestOutsideAlwaysIsSavedPerFolder(t *testing.T) {
	h := newHarness(t)
	rules, err := permission.LoadRules(filepath.Join(t.TempDir(), "allow.json"))
	if err != nil {
		t.Fatal(err)
	}
	h.env.Rules = rules
	lib := outsideTree(t)

	h.host.answer = protocol.AnswerAlways
	if got := h.ok("read_file", map[string]any{"path": filepath.Join(lib, "a.h")}); got != "1\ta\n" {
		t.Fatal(got)
	}
	if n := len(h.host.requests); n != 1 || !strings.Contains(h.host.requests[0].AlwaysScope, lib) {
		t.Fatalf("asked %d times: %+v", n, h.host.requests)
	}
	saved := rules.List()
	if len(saved) != 1 || saved[0].Kind != protocol.ApprovalOutside || saved[0].Dir != lib {
		t.Fatalf("saved %+v", saved)
	}
	b, err := os.ReadFile(rules.Path())
	if err != nil || !strings.Contains(string(b), `"dir": "`+lib+`"`) {
		t.Fatalf("allow.json: %s %v", b, err)
	}

	// The same folder: read, listed and searched without asking.
	h.host.answer = protocol.AnswerNo
	h.ok("read_file", map[string]any{"path": filepath.Join(lib, "b.h")})
	h.ok("list_dir", map[string]any{"path": lib})
	if h.env.Settings.RgPath != "" {
		h.ok("grep", map[string]any{"pattern": "b", "path": lib})
	}
	if n := len(h.host.requests); n != 1 {
		t.Fatalf("the saved folder asked again: %+v", h.host.requests[1:])
	}
	// Not its subfolder, not lib-evil, not a link in it leading elsewhere.
	for _, p := range []string{filepath.Join(lib, "sub", "c.h"), filepath.Join(lib+"-evil", "d.h"), filepath.Join(lib, "link.h")} {
		before := len(h.host.requests)
		if msg := h.fail("read_file", map[string]any{"path": p}); !strings.Contains(msg, "declined") {
			t.Errorf("%s: %s", p, msg)
		}
		if len(h.host.requests) != before+1 {
			t.Errorf("%s was read without asking", p)
		}
	}
	// Reset: the folder asks again.
	if err := rules.Reset(); err != nil {
		t.Fatal(err)
	}
	before := len(h.host.requests)
	h.fail("read_file", map[string]any{"path": filepath.Join(lib, "b.h")})
	if len(h.host.requests) != before+1 {
		t.Fatal("after reset the folder was read without asking")
	}
}

// A write root (the writeRoots setting) lets changes reach a folder
// outside the workspace, confined like the workspace: written with
// approval, read without asking, edited, deleted; a link in it that leads
// elsewhere, and a sibling that starts with its name, stay outside.
func TestWriteRootsTakeChanges(t *testing.T) {
	h := newHarness(t)
	lib := outsideTree(t)
	if err := h.env.Workspace.AddWriteRoots(lib); err != nil {
		t.Fatal(err)
	}
	h.ok("write_file", map[string]any{"path": filepath.Join(lib, "new", "n.h"), "content": "n\n"})
	if b, err := os.ReadFile(filepath.Join(lib, "new", "n.h")); err != nil || string(b) != "n\n" {
		t.Fatalf("written: %q %v", b, err)
	}
	if len(h.host.requests) != 1 || h.host.requests[0].Kind != protocol.ApprovalEdit {
		t.Fatalf("the write was not asked as an edit: %+v", h.host.requests)
	}
	h.ok("read_file", map[string]any{"path": filepath.Join(lib, "a.h")})
	if len(h.host.requests) != 1 {
		t.Fatalf("a read in the write root asked: %+v", h.host.requests[1:])
	}
	h.ok("edit_file", map[string]any{"path": filepath.Join(lib, "a.h"), "old_string": "a", "new_string": "A"})
	h.ok("delete_file", map[string]any{"path": filepath.Join(lib, "a.h")})
	if _, err := os.Stat(filepath.Join(lib, "a.h")); !os.IsNotExist(err) {
		t.Fatalf("a.h is still there: %v", err)
	}
	// Outside it: refused, nothing written there.
	for _, p := range []string{filepath.Join(lib, "link.h"), filepath.Join(lib+"-evil", "x.h"), filepath.Join(filepath.Dir(lib), "elsewhere", "new.h")} {
		msg := h.fail("write_file", map[string]any{"path": p, "content": "x\n"})
		if !strings.Contains(msg, "outside the workspace folders") || !strings.Contains(msg, lib) {
			t.Errorf("%s: %s", p, msg)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(filepath.Dir(lib), "elsewhere", "e.h")); string(b) != "e\n" {
		t.Fatalf("the file a link in the write root leads to was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(lib+"-evil", "x.h")); !os.IsNotExist(err) {
		t.Fatal("a file was written in the sibling")
	}
}
