package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

func TestReadFileGutterAndRecord(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\ntwo\nthree\n")
	got := h.ok("read_file", map[string]any{"path": "a.txt"})
	if got != "1\tone\n2\ttwo\n3\tthree\n" {
		t.Fatalf("got %q", got)
	}
	rec := h.sess.Lookup(filepath.Join(h.dir, "a.txt"))
	if rec == nil || !rec.Full() || rec.TotalLines != 3 {
		t.Fatalf("record = %+v, want a full read of 3 lines", rec)
	}
}

func TestReadFilePaging(t *testing.T) {
	h := newHarness(t)
	var sb strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	h.write("big.txt", sb.String())
	got := h.ok("read_file", map[string]any{"path": "big.txt", "offset": 10, "limit": 3})
	if !strings.HasPrefix(got, "10\tline 10\n11\tline 11\n12\tline 12\n") || !strings.Contains(got, "continue with offset=13") {
		t.Fatalf("got %q", got)
	}
	rec := h.sess.Lookup(filepath.Join(h.dir, "big.txt"))
	if rec.Full() || !rec.Lines.Covers(10, 12) || rec.Lines.Covers(13, 13) {
		t.Fatalf("record ranges = %v", rec.Lines.Ranges())
	}
	if msg := h.fail("read_file", map[string]any{"path": "big.txt", "offset": 500}); !strings.Contains(msg, "has 100 lines") {
		t.Fatalf("past-end message: %s", msg)
	}
}

func TestReadFileStopsAtBudget(t *testing.T) {
	h := newHarness(t)
	var sb strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&sb, "this is line number %d of a long file\n", i)
	}
	h.write("long.txt", sb.String())
	r := h.reg.Invoke(t.Context(), &tool.Call{Name: "read_file", Args: []byte(`{"path":"long.txt"}`), Budget: tool.Budget{Tokens: 1000}, Session: h.sess, Env: h.env})
	if r.IsError || len(r.Content) > (tool.Budget{Tokens: 1000}).OutputChars() {
		t.Fatalf("result of %d bytes, error=%v", len(r.Content), r.IsError)
	}
	if !strings.Contains(r.Content, "of 5000; continue with offset=") {
		t.Fatalf("no continuation note: %q", r.Content[len(r.Content)-200:])
	}
}

func TestReadFileRefusals(t *testing.T) {
	h := newHarness(t)
	h.write("bin.dat", "abc\x00def")
	h.write("dir/x.txt", "x")
	big := strings.Repeat("0123456789abcdef\n", (3<<20)/17)
	h.write("huge.txt", big)
	for _, tc := range []struct{ path, want string }{
		{"bin.dat", "binary file"},
		{"dir", "is a directory"},
		{"missing.txt", "does not exist"},
		{"huge.txt", "offset and limit"},
		{"", "path is empty"},
	} {
		if msg := h.fail("read_file", map[string]any{"path": tc.path}); !strings.Contains(msg, tc.want) {
			t.Errorf("read %q: %s (want %q)", tc.path, msg, tc.want)
		}
	}
	// A huge file can still be paged.
	got := h.ok("read_file", map[string]any{"path": "huge.txt", "offset": 100000, "limit": 2})
	if !strings.HasPrefix(got, "100000\t0123456789abcdef\n100001\t") {
		t.Fatalf("paged read of huge file: %q", got)
	}
}

func TestReadFileLongLineIsCut(t *testing.T) {
	h := newHarness(t)
	h.write("min.js", "a\n"+strings.Repeat("x", 1<<20+1<<19)+"\nb\n")
	got := h.ok("read_file", map[string]any{"path": "min.js"})
	if len(got) > tool.NewBudget(0, 0).OutputChars() || !strings.Contains(got, "line cut") || !strings.HasPrefix(got, "1\ta\n2\txxx") {
		t.Fatalf("long line not cut (%d bytes): %.200q", len(got), got)
	}
}

func TestReadFileBOMAndCRLF(t *testing.T) {
	h := newHarness(t)
	h.write("w.txt", "\uFEFFfirst\r\nsecond\r\n")
	if got := h.ok("read_file", map[string]any{"path": "w.txt"}); got != "1\tfirst\n2\tsecond\n" {
		t.Fatalf("got %q", got)
	}
	h.write("e.txt", "")
	if got := h.ok("read_file", map[string]any{"path": "e.txt"}); !strings.Contains(got, "empty") {
		t.Fatalf("empty file: %q", got)
	}
	h.write("noeol.txt", "a\nb")
	if got := h.ok("read_file", map[string]any{"path": "noeol.txt"}); got != "1\ta\n2\tb\n" {
		t.Fatalf("got %q", got)
	}
}

func TestReadFileInvalidUTF8(t *testing.T) {
	h := newHarness(t)
	h.write("latin1.txt", "caf\xe9\n")
	got := h.ok("read_file", map[string]any{"path": "latin1.txt"})
	if !strings.Contains(got, "not valid UTF-8") {
		t.Fatalf("got %q", got)
	}
}

func TestReadFileOutsideAsks(t *testing.T) {
	h := newHarness(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("s\n"), 0o644)
	h.host.answer = protocol.AnswerNo
	if msg := h.fail("read_file", map[string]any{"path": outside}); !strings.Contains(msg, "declined") {
		t.Fatalf("got %s", msg)
	}
	if len(h.host.requests) != 1 || h.host.requests[0].Kind != protocol.ApprovalOutside {
		t.Fatalf("requests = %+v", h.host.requests)
	}
	h.host.answer = protocol.AnswerYes
	if got := h.ok("read_file", map[string]any{"path": outside}); got != "1\ts\n" {
		t.Fatalf("got %q", got)
	}
	// A symlink inside the workspace pointing out is judged by its target.
	os.Symlink(outside, filepath.Join(h.dir, "link.txt"))
	h.host.requests = nil
	h.ok("read_file", map[string]any{"path": "link.txt"})
	if len(h.host.requests) != 1 {
		t.Fatal("reading through a symlink to outside did not ask")
	}
}

func TestRepeatRefusedOnThird(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "a\n")
	h.ok("read_file", map[string]any{"path": "a.txt"})
	h.ok("read_file", map[string]any{"path": "a.txt"})
	if msg := h.fail("read_file", map[string]any{"path": "a.txt"}); !strings.Contains(msg, "3 times in a row") {
		t.Fatal(msg)
	}
	h.ok("read_file", map[string]any{"path": "a.txt", "offset": 1})
	h.ok("read_file", map[string]any{"path": "a.txt"})
}

func TestUnknownToolAndBadArgs(t *testing.T) {
	h := newHarness(t)
	if msg := h.fail("raed_file", map[string]any{}); !strings.Contains(msg, "read_file") {
		t.Fatal(msg)
	}
	if msg := h.fail("read_file", map[string]any{"path": 12}); !strings.Contains(msg, "path must be a string; it was 12") {
		t.Fatal(msg)
	}
	if msg := h.fail("read_file", map[string]any{"file_path": "x"}); !strings.Contains(msg, `unknown argument "file_path"`) {
		t.Fatal(msg)
	}
}

// TestReadAndGrepOfANamedPipeAnswer reads and searches a named pipe that
// has no writer: both refuse at once instead of waiting forever.
func TestReadAndGrepOfANamedPipeAnswer(t *testing.T) {
	h := newHarness(t)
	mkfifo(t, filepath.Join(h.dir, "pipe"))
	done := make(chan [2]string, 1)
	go func() {
		r := h.call("read_file", map[string]any{"path": "pipe"})
		g := h.call("grep", map[string]any{"pattern": "x", "path": "pipe"})
		if !r.IsError || !g.IsError {
			done <- [2]string{"succeeded: " + r.Content, g.Content}
			return
		}
		done <- [2]string{r.Content, g.Content}
	}()
	select {
	case got := <-done:
		if !strings.Contains(got[0], "named pipe") || !strings.Contains(got[1], "named pipe") {
			t.Fatalf("read_file: %s\ngrep: %s", got[0], got[1])
		}
	case <-time.After(30 * time.Second):
		t.Fatal("read_file or grep of a named pipe with no writer never answered")
	}
}

// A cancelled read answers as cancelled.
func TestReadFileCancelled(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", strings.Repeat("line\n", 10000))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw, _ := json.Marshal(map[string]any{"path": "a.txt"})
	r := h.reg.Invoke(ctx, &tool.Call{Name: "read_file", Args: raw, RequestID: "r1", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env})
	if !r.IsError || !strings.Contains(r.Content, "cancelled") {
		t.Fatalf("read_file with a cancelled context: %+v", r)
	}
}

// A file:// URI, as editors hand paths around, reads the file it names and
// never creates a folder named "file:".
func TestFileURIPaths(t *testing.T) {
	h := newHarness(t)
	h.write("src/a.txt", "hello\n")
	uri := "file://" + filepath.ToSlash(filepath.Join(h.dir, "src", "a.txt"))
	if got := h.ok("read_file", map[string]any{"path": uri}); !strings.Contains(got, "hello") {
		t.Fatalf("read_file of a file URI: %q", got)
	}
	h.env.Settings.Mode = protocol.ModeBypass
	h.ok("write_file", map[string]any{"path": "file://" + filepath.ToSlash(filepath.Join(h.dir, "new.txt")), "content": "x\n"})
	if h.read("new.txt") != "x\n" {
		t.Fatal("write_file of a file URI did not write the file it names")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "file:")); !os.IsNotExist(err) {
		t.Fatal("a folder named file: was created")
	}
	if msg := h.fail("read_file", map[string]any{"path": "file://elsewhere/etc/hosts"}); !strings.Contains(msg, "file:// URIs of this machine") {
		t.Fatalf("a URI of another machine: %s", msg)
	}
}

// A line read_file cut at its cap was not shown: the read record leaves it
// out, so neither an overwrite nor a delete goes through, while an edit
// (which needs only some of the file seen) still does.
func TestReadFileCutLineIsNotRead(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("x", 200<<10)
	h.write("wide.txt", "first\n"+long+"\nlast\n")
	got := h.ok("read_file", map[string]any{"path": "wide.txt"})
	if !strings.Contains(got, "line cut") {
		t.Fatalf("the long line was not cut: %d bytes", len(got))
	}
	rec := h.sess.Lookup(filepath.Join(h.dir, "wide.txt"))
	if rec.Full() || !rec.Lines.Covers(1, 1) || rec.Lines.Covers(2, 2) || !rec.Lines.Covers(3, 3) {
		t.Fatalf("record ranges = %v", rec.Lines.Ranges())
	}
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "wide.txt", "content": "new\n"}},
		{"delete_file", map[string]any{"path": "wide.txt"}},
	} {
		msg := h.fail(call.name, call.args)
		if !strings.Contains(msg, "line 2") || !strings.Contains(msg, "cut") {
			t.Errorf("%s: %s", call.name, msg)
		}
	}
	if h.read("wide.txt") != "first\n"+long+"\nlast\n" {
		t.Fatal("the file changed")
	}
	// Reading the cut line alone cuts it again: it is still not read.
	h.ok("read_file", map[string]any{"path": "wide.txt", "offset": 2, "limit": 1})
	if rec := h.sess.Lookup(filepath.Join(h.dir, "wide.txt")); rec.Lines.Covers(2, 2) {
		t.Fatalf("a cut line counted as read: %v", rec.Lines.Ranges())
	}
	h.ok("edit_file", map[string]any{"path": "wide.txt", "old_string": "last", "new_string": "final"})
}

// A file that says it is empty but is not (the files of /proc) is read to
// its end: the read stops at the size the file gave only when that size
// is not 0.
func TestReadFileOfAZeroSizeFileWithContent(t *testing.T) {
	const status = "/proc/self/status"
	fi, err := os.Stat(status)
	if err != nil || fi.Size() != 0 {
		t.Skipf("needs a /proc whose files say they are empty (%v)", err)
	}
	h := newHarness(t)
	h.host.answer = protocol.AnswerYes
	if got := h.ok("read_file", map[string]any{"path": status}); !strings.Contains(got, "\tName:\t") || !strings.Contains(got, "\tPid:\t") {
		t.Fatalf("got %q, want the status lines", got)
	}
}

// A file that grows after it was opened is read as it was: the lines, and
// the read record, stop at the size it had then.
func TestReadFileStopsAtTheSizeItOpened(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\ntwo\n")
	f, err := os.Open(filepath.Join(h.dir, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(sized(f, fi))
	if err != nil || string(got) != "one\ntwo\n" {
		t.Fatalf("read %q (%v), want the 8 bytes the file had when opened", got, err)
	}
}
