package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/tool"
)

// lines writes n numbered lines: "line 1" … "line n".
func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// changeLater writes a file as someone else would, with a modification
// time unlike the one the agent read.
func (h *harness) changeLater(rel, content string) {
	h.t.Helper()
	h.write(rel, content)
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(h.dir, rel), later, later); err != nil {
		h.t.Fatal(err)
	}
}

// A file whose modification time or size moved but whose bytes did not
// (touch, a formatter that changed nothing, a save without change, a
// checkout of the same bytes) is not stale: the change goes through.
func TestSameBytesAreNotStale(t *testing.T) {
	h := newHarness(t)
	h.write("a.go", lines(5))
	h.readWhole("a.go")
	h.touchLater("a.go")
	h.ok("edit_file", editArgs("a.go", "line 2", "LINE 2"))
	h.changeLater("a.go", h.read("a.go")) // rewritten, same bytes
	h.ok("edit_file", editArgs("a.go", "line 4", "LINE 4"))
	// An overwrite needs every line read: still true after a touch.
	h.touchLater("a.go")
	h.ok("write_file", writeArgs("a.go", "new\n"))
}

// A file whose content changed is refused, and the refusal shows what
// changed since the read, with line numbers, and who changed it; the read
// record then holds what the refusal showed, so the change can be redone
// without another read, even an overwrite when every line is now known.
func TestStaleRefusalShowsWhatChanged(t *testing.T) {
	h := newHarness(t)
	h.write("a.go", lines(20))
	h.readWhole("a.go")
	h.changeLater("a.go", strings.Replace(lines(20), "line 12\n", "line twelve\nline 12b\n", 1))

	msg := h.fail("edit_file", editArgs("a.go", "line 3", "LINE 3"))
	for _, want := range []string{
		"a.go changed on disk since you last read it",
		"outside Tether",
		"-12\tline 12\n", "+12\tline twelve\n", "+13\tline 12b\n", " 14\tline 13\n",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, msg)
		}
	}
	if h.read("a.go") != strings.Replace(lines(20), "line 12\n", "line twelve\nline 12b\n", 1) {
		t.Fatal("the stale edit was written")
	}
	h.ok("edit_file", editArgs("a.go", "line 3", "LINE 3"))
	h.ok("write_file", writeArgs("a.go", "all new\n"))
}

// Only the changed lines are shown, bounded: a change too large to show is
// cut at a whole region, says how much more changed, and the lines not
// shown are not in the read record (an overwrite then needs them read).
func TestStaleRefusalIsBounded(t *testing.T) {
	h := newHarness(t)
	h.write("big.go", lines(2000))
	h.readWhole("big.go")
	changed := strings.ReplaceAll(lines(2000), "0\n", "0 changed\n") // every tenth line
	h.changeLater("big.go", changed)
	msg := h.fail("edit_file", editArgs("big.go", "line 1\n", "LINE 1\n"))
	if len(msg) > tool.NewBudget(0, 0).OutputChars()/2 || !strings.Contains(msg, "more changed region") || !strings.Contains(msg, "+10\tline 10 changed") {
		t.Fatalf("%d bytes:\n%.2000s", len(msg), msg)
	}
	h.ok("edit_file", editArgs("big.go", "line 1\n", "LINE 1\n"))
	if msg := h.fail("write_file", writeArgs("big.go", "x\n")); !strings.Contains(msg, "every line") {
		t.Fatalf("an overwrite after a cut refusal: %s", msg)
	}
}

// The refusal says who changed the file, where Tether knows: a shell
// command of this request (which one), the user saving in the editor, a
// sub-agent; otherwise outside Tether.
func TestStaleRefusalSaysWhoChangedIt(t *testing.T) {
	t.Run("a shell command of this request", func(t *testing.T) {
		h := newHarness(t)
		h.env.Changes = tool.NewChangeLog()
		h.write("a.go", lines(3))
		h.readWhole("a.go")
		h.ok("shell", map[string]any{"command": "sed -i 's/line 2/line two/' a.go"})
		msg := h.fail("edit_file", editArgs("a.go", "line 1", "LINE 1"))
		if !strings.Contains(msg, "the shell call of this request") || !strings.Contains(msg, "sed -i") || !strings.Contains(msg, "ago") {
			t.Fatal(msg)
		}
	})
	t.Run("the user in the editor", func(t *testing.T) {
		h := newHarness(t)
		h.env.Changes = tool.NewChangeLog()
		h.write("a.go", lines(3))
		h.readWhole("a.go")
		h.changeLater("a.go", "line 1\nedited\nline 3\n")
		h.env.Changes.NoteSave(filepath.Join(h.dir, "a.go"), time.Now())
		if msg := h.fail("edit_file", editArgs("a.go", "line 1", "LINE 1")); !strings.Contains(msg, "the user saved it in the editor") {
			t.Fatal(msg)
		}
	})
	t.Run("a sub-agent", func(t *testing.T) {
		h := newHarness(t)
		h.env.Changes = tool.NewChangeLog()
		h.write("a.go", lines(3))
		h.readWhole("a.go")
		child := tool.NewChildSession(h.sess)
		call := func(name string, args string) tool.Result {
			return h.reg.Invoke(context.Background(), &tool.Call{Name: name, Args: []byte(args), RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: child, Env: h.env})
		}
		call("read_file", `{"path":"a.go"}`)
		if r := call("edit_file", `{"path":"a.go","old_string":"line 3","new_string":"line three"}`); r.IsError {
			t.Fatal(r.Content)
		}
		if msg := h.fail("edit_file", editArgs("a.go", "line 1", "LINE 1")); !strings.Contains(msg, "a sub-agent of yours") || !strings.Contains(msg, "+3\tline three") {
			t.Fatal(msg)
		}
	})
}

// A file too large for Tether to have kept what was read cannot show its
// change: the refusal says so and asks for a read, and does not pretend
// the agent has seen it.
func TestStaleRefusalWithoutTheOldText(t *testing.T) {
	h := newHarness(t)
	big := strings.Repeat("0123456789abcdef\n", (3<<20)/17)
	h.write("huge.txt", big)
	h.ok("read_file", map[string]any{"path": "huge.txt", "offset": 1, "limit": 3})
	h.changeLater("huge.txt", "changed\n"+big)
	msg := h.fail("edit_file", editArgs("huge.txt", "0123456789abcdef\n0123", "x"))
	if !strings.Contains(msg, "changed on disk since you last read it") || !strings.Contains(msg, "read it again") {
		t.Fatal(msg)
	}
	h.fail("edit_file", editArgs("huge.txt", "0123456789abcdef\n0123", "x"))
}
