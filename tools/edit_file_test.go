package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// callTuned runs a tool like h.call, after tune adjusts the call (budget,
// prepare, session).
func (h *harness) callTuned(name string, args any, tune func(*tool.Call)) tool.Result {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	c := &tool.Call{Name: name, Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env}
	tune(c)
	return h.reg.Invoke(context.Background(), c)
}

// readWhole reads a file through read_file so the session records it.
func (h *harness) readWhole(rel string) {
	h.t.Helper()
	h.ok("read_file", map[string]any{"path": rel})
}

// touchLater gives a file a modification time in the future without
// changing its content, as an editor saving the same bytes would.
func (h *harness) touchLater(rel string) {
	h.t.Helper()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(h.dir, rel), later, later); err != nil {
		h.t.Fatal(err)
	}
}

func editArgs(path, old, new string) map[string]any {
	return map[string]any{"path": path, "old_string": old, "new_string": new}
}

func TestEditFileNeedsARead(t *testing.T) {
	h := newHarness(t)
	h.write("a.go", "one\ntwo\nthree\nfour\n")
	if msg := h.fail("edit_file", editArgs("a.go", "four", "4")); !strings.Contains(msg, "read a.go with read_file before you edit it") {
		t.Fatal(msg)
	}
	if h.read("a.go") != "one\ntwo\nthree\nfour\n" {
		t.Fatal("file changed")
	}
	// Any part will do: the edit's exact match proves the rest.
	h.ok("read_file", map[string]any{"path": "a.go", "offset": 1, "limit": 1})
	h.ok("edit_file", editArgs("a.go", "four", "4"))
	if got := h.read("a.go"); got != "one\ntwo\nthree\n4\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditFileRefusesStaleFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(h *harness)
	}{
		{"size changed", func(h *harness) { h.write("a.go", "one\ntwo\nthree\n") }},
		{"same size, other bytes", func(h *harness) { h.changeLater("a.go", "one\nTWO\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("a.go", "one\ntwo\n")
			h.readWhole("a.go")
			tc.change(h)
			before := h.read("a.go")
			if msg := h.fail("edit_file", editArgs("a.go", "one", "1")); !strings.Contains(msg, "changed on disk since you last read it") {
				t.Fatal(msg)
			}
			if h.read("a.go") != before {
				t.Fatal("stale edit was written")
			}
			h.readWhole("a.go")
			h.ok("edit_file", editArgs("a.go", "one", "1"))
		})
	}
}

func TestEditFileOwnWritesAreNotStale(t *testing.T) {
	h := newHarness(t)
	h.write("a.go", "alpha\nbeta\ngamma\n")
	h.readWhole("a.go")
	h.ok("edit_file", editArgs("a.go", "alpha", "ALPHA"))
	h.ok("edit_file", editArgs("a.go", "gamma", "GAMMA"))
	h.ok("edit_file", editArgs("a.go", "ALPHA\nbeta", "a\nb"))
	if got := h.read("a.go"); got != "a\nb\nGAMMA\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditFileMustMatchOnce(t *testing.T) {
	h := newHarness(t)
	h.write("a.go", "x := 1\ny := 2\nx := 1\n")
	h.readWhole("a.go")
	msg := h.fail("edit_file", editArgs("a.go", "x := 1", "x := 3"))
	for _, want := range []string{"occurs 2 times", "on lines 1, 3", "surrounding lines", "replace_all=true"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if h.read("a.go") != "x := 1\ny := 2\nx := 1\n" {
		t.Fatal("ambiguous edit was written")
	}
	got := h.ok("edit_file", map[string]any{"path": "a.go", "old_string": "x := 1", "new_string": "x := 3", "replace_all": true})
	if !strings.Contains(got, "replaced 2 occurrences, starting on lines 1, 3") {
		t.Fatal(got)
	}
	if h.read("a.go") != "x := 3\ny := 2\nx := 3\n" {
		t.Fatal(h.read("a.go"))
	}
}

func TestEditFileMalformedEdits(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"empty old_string", "", "x", "use write_file"},
		{"old equals new", "same", "same", "identical"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("a.go", "same\n")
			// Judged before the file is even looked at: no read needed.
			if msg := h.fail("edit_file", editArgs("a.go", tc.old, tc.new)); !strings.Contains(msg, tc.want) {
				t.Fatal(msg)
			}
		})
	}
}

func TestEditFileNotFoundShowsClosestRegion(t *testing.T) {
	const file = "package p\n\nfunc f() {\n\tif ok {\n\t\treturn\n\t}\n}\n"
	for _, tc := range []struct {
		name, old string
		want      []string
	}{
		{"spaces for tabs", "    if ok {\n        return\n", []string{"lines 4-5", "4\t\tif ok {\n5\t\t\treturn\n", "Tabs versus spaces on line(s) 4-5"}},
		{"gutter left in", "4\t\tif ok {\n5\t\t\treturn\n", []string{"matches lines 4-5 exactly once this is fixed", "line-number gutter"}},
		{"typo", "func g() {", []string{"line 3", `line 3 of the file is "func f() {"`}},
		{"nothing alike", "completely unrelated words", []string{"no part of the file resembles it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("a.go", file)
			h.readWhole("a.go")
			msg := h.fail("edit_file", editArgs("a.go", tc.old, "x"))
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			if h.read("a.go") != file {
				t.Fatal("file changed")
			}
		})
	}
}

// The excerpt in a miss is there to be copied: a retry built from it, gutter
// removed, must succeed the first time.
func TestEditFileRetryFromExcerptSucceeds(t *testing.T) {
	h := newHarness(t)
	h.write("a.py", "def f():\n\tif x:\n\t\treturn 1  \n\treturn 2\n")
	h.readWhole("a.py")
	msg := h.fail("edit_file", editArgs("a.py", "    if x:\n        return 1\n", "\tif y:\n\t\treturn 1\n"))
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		if n, rest, ok := strings.Cut(l, "\t"); ok && (n == "2" || n == "3") {
			lines = append(lines, rest)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("excerpt lines 2-3 not found in:\n%s", msg)
	}
	h.ok("edit_file", editArgs("a.py", strings.Join(lines, "\n")+"\n", "\tif y:\n\t\treturn 1\n"))
	if got := h.read("a.py"); got != "def f():\n\tif y:\n\t\treturn 1\n\treturn 2\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditFileLineEndingsAndBOM(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"CRLF file, LF edit", "a\r\nb\r\nc\r\n", "a\nb\n", "x\ny\nz\n", "x\r\ny\r\nz\r\nc\r\n"},
		{"mixed file keeps its other lines", "a\nb\r\nc\n", "b\n", "b1\nb2\n", "a\nb1\r\nb2\r\nc\n"},
		{"BOM kept", "\uFEFFa\nb\n", "a", "A", "\uFEFFA\nb\n"},
		{"BOM and CRLF", "\uFEFFa\r\nb\r\n", "a\nb", "b\na", "\uFEFFb\r\na\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("f.txt", tc.file)
			h.readWhole("f.txt")
			h.ok("edit_file", editArgs("f.txt", tc.old, tc.new))
			if got := h.read("f.txt"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEditFileRefusesBinary(t *testing.T) {
	h := newHarness(t)
	h.write("b.bin", "abc\x00def")
	if msg := h.fail("edit_file", editArgs("b.bin", "abc", "x")); !strings.Contains(msg, "binary file") {
		t.Fatal(msg)
	}
}

func TestEditFileKeepsMode(t *testing.T) {
	h := newHarness(t)
	p := h.write("run.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	h.readWhole("run.sh")
	h.ok("edit_file", editArgs("run.sh", "hi", "hello"))
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode = %v, want 0755", fi.Mode().Perm())
	}
}

func TestEditFileThroughSymlinkUpdatesTarget(t *testing.T) {
	h := newHarness(t)
	target := h.write("real/target.txt", "old text\n")
	link := filepath.Join(h.dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	h.readWhole("link.txt")
	h.ok("edit_file", editArgs("link.txt", "old", "new"))
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if got := h.read("real/target.txt"); got != "new text\n" {
		t.Fatalf("target = %q", got)
	}
}

func TestEditFileOutsideWorkspaceRefused(t *testing.T) {
	h := newHarness(t)
	outside := filepath.Join(t.TempDir(), "o.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	os.Symlink(outside, filepath.Join(h.dir, "out-link.txt"))
	h.env.Settings.Mode = protocol.ModeBypass
	for _, path := range []string{outside, "out-link.txt", "../" + filepath.Base(filepath.Dir(outside)) + "/o.txt"} {
		if msg := h.fail("edit_file", editArgs(path, "secret", "x")); !strings.Contains(msg, "outside the workspace") {
			t.Errorf("%s: %s", path, msg)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret\n" {
		t.Fatal("outside file changed")
	}
}

func TestEditFileShowsChangedLines(t *testing.T) {
	const file = "1\n2\n3\n4\n5\n6\n7\n"
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"middle", "4\n", "four\nFOUR\n", "2\t2\n3\t3\n4\tfour\n5\tFOUR\n6\t5\n7\t6\n"},
		{"first line", "1\n", "one\n", "1\tone\n2\t2\n3\t3\n"},
		{"last line deleted", "6\n7\n", "", "4\t4\n5\t5\n"},
		{"inside a line", "5", "five", "3\t3\n4\t4\n5\tfive\n6\t6\n7\t7\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("a.go", file)
			h.readWhole("a.go")
			got := h.ok("edit_file", editArgs("a.go", tc.old, tc.new))
			if !strings.HasSuffix(got, "now reads:\n"+tc.want) {
				t.Fatalf("got %q", got)
			}
		})
	}
}

// Two agents edit one file at once from the same base: one wins, the other
// is told the file changed, and the file holds exactly the winner's edit.
func TestConcurrentEditsNeverShareABase(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeAcceptEdits // nobody to ask from two goroutines
	const base = "top\nmiddle\nbottom\n"
	for round := range 20 {
		name := fmt.Sprintf("f%d.txt", round)
		h.write(name, base)
		sessions := []*tool.Session{tool.NewSession(), tool.NewSession()}
		edits := []map[string]any{editArgs(name, "top", "TOP-from-first"), editArgs(name, "bottom", "BOTTOM-from-second-agent")}
		for _, s := range sessions {
			h.sess = s
			h.readWhole(name)
		}
		results := make([]tool.Result, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				results[i] = h.callTuned("edit_file", edits[i], func(c *tool.Call) { c.Session = sessions[i] })
			})
		}
		wg.Wait()
		wins := 0
		for i, r := range results {
			if r.IsError {
				if !strings.Contains(r.Content, "changed on disk") {
					t.Fatalf("round %d: loser %d says %q", round, i, r.Content)
				}
				continue
			}
			wins++
			want := strings.Replace(base, edits[i]["old_string"].(string), edits[i]["new_string"].(string), 1)
			if got := h.read(name); got != want {
				t.Fatalf("round %d: file %q, want only edit %d: %q", round, got, i, want)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d edits applied, want exactly 1: %+v", round, wins, results)
		}
	}
}
