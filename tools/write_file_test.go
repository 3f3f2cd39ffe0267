package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
)

func writeArgs(path, content string) map[string]any {
	return map[string]any{"path": path, "content": content}
}

func TestWriteFileCreatesWithFolders(t *testing.T) {
	h := newHarness(t)
	got := h.ok("write_file", writeArgs("deep/er/new.go", "package p\n"))
	if !strings.Contains(got, "Created deep/er/new.go (1 line)") {
		t.Fatal(got)
	}
	if h.read("deep/er/new.go") != "package p\n" {
		t.Fatal("wrong content")
	}
	// Tether wrote every line, so the agent knows the file: no read needed.
	h.ok("edit_file", editArgs("deep/er/new.go", "package p", "package q"))
	h.ok("write_file", writeArgs("deep/er/new.go", "package r\n"))
}

func TestWriteFileOverwriteNeedsEveryLineRead(t *testing.T) {
	h := newHarness(t)
	var sb strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	h.write("a.txt", sb.String())
	if msg := h.fail("write_file", writeArgs("a.txt", "new\n")); !strings.Contains(msg, "read a.txt with read_file before you overwrite it") {
		t.Fatal(msg)
	}
	// The first and the last line are not the whole file.
	h.ok("read_file", map[string]any{"path": "a.txt", "offset": 1, "limit": 1})
	h.ok("read_file", map[string]any{"path": "a.txt", "offset": 10, "limit": 1})
	msg := h.fail("write_file", writeArgs("a.txt", "new\n"))
	if !strings.Contains(msg, "you have seen lines 1, 10 of 10, not 2-9") || !strings.Contains(msg, "append=true") {
		t.Fatal(msg)
	}
	// Ranges merge: reading the middle in two parts completes the file.
	h.ok("read_file", map[string]any{"path": "a.txt", "offset": 2, "limit": 4})
	h.ok("read_file", map[string]any{"path": "a.txt", "offset": 6, "limit": 4})
	h.ok("write_file", writeArgs("a.txt", "new\n"))
	if h.read("a.txt") != "new\n" {
		t.Fatal(h.read("a.txt"))
	}
}

func TestWriteFileOverwriteRefusesStaleFile(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\n")
	h.readWhole("a.txt")
	h.changeLater("a.txt", "won\n")
	if msg := h.fail("write_file", writeArgs("a.txt", "two\n")); !strings.Contains(msg, "changed on disk") {
		t.Fatal(msg)
	}
	if h.read("a.txt") != "won\n" {
		t.Fatal("stale overwrite written")
	}
}

func TestWriteFileAppendNeedsNoRead(t *testing.T) {
	for _, tc := range []struct {
		name, before, content, want, note string
		exists                            bool
	}{
		{"to an unread file", "a\n", "b\n", "a\nb\n", "Appended 1 line to f.txt; it now has 2 lines.", true},
		{"to a missing file", "", "first\n", "first\n", "Created f.txt", false},
		{"to a file without a final line break", "a", "b\n", "ab\n", "did not end with a line break", true},
		{"to a CRLF file", "a\r\n", "b\nc\n", "a\r\nb\r\nc\r\n", "Appended 2 lines", true},
		{"with a BOM to a BOM file", "\uFEFFa\n", "\uFEFFb\n", "\uFEFFa\nb\n", "Appended", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if tc.exists {
				h.write("f.txt", tc.before)
			}
			got := h.ok("write_file", map[string]any{"path": "f.txt", "content": tc.content, "append": true})
			if !strings.Contains(got, tc.note) {
				t.Errorf("result %q lacks %q", got, tc.note)
			}
			if h.read("f.txt") != tc.want {
				t.Fatalf("got %q, want %q", h.read("f.txt"), tc.want)
			}
		})
	}
}

// Appending blind does not count as having read the file.
func TestWriteFileAppendIsNotARead(t *testing.T) {
	h := newHarness(t)
	h.write("f.txt", "secret first line\n")
	h.ok("write_file", map[string]any{"path": "f.txt", "content": "added\n", "append": true})
	if msg := h.fail("edit_file", editArgs("f.txt", "secret", "x")); !strings.Contains(msg, "before you edit it") {
		t.Fatal(msg)
	}
	// After a read, appending keeps the record current.
	h.readWhole("f.txt")
	h.ok("write_file", map[string]any{"path": "f.txt", "content": "more\n", "append": true})
	h.ok("edit_file", editArgs("f.txt", "secret", "public"))
	h.ok("write_file", writeArgs("f.txt", "all known\n"))
}

func TestWriteFileRefusesOversizedWrite(t *testing.T) {
	h := newHarness(t)
	small := tool.Budget{Tokens: 1000} // 4,000 output bytes, so 2,000 per write
	content := strings.Repeat("0123456789abcdef\n", 200)
	for _, appendMode := range []bool{false, true} {
		r := h.callTuned("write_file", map[string]any{"path": "big.txt", "content": content, "append": appendMode}, func(c *tool.Call) { c.Budget = small })
		if !r.IsError || !strings.Contains(r.Content, "over the 2000-byte limit") || !strings.Contains(r.Content, "append=true") {
			t.Fatalf("append=%v: %+v", appendMode, r)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "big.txt")); !os.IsNotExist(err) {
		t.Fatal("oversized write happened")
	}
	r := h.callTuned("write_file", writeArgs("big.txt", content[:1900]), func(c *tool.Call) { c.Budget = small })
	if r.IsError {
		t.Fatal(r.Content)
	}
}

func TestWriteFileKeepsLineEndingsAndBOM(t *testing.T) {
	for _, tc := range []struct {
		name, before, content, want string
	}{
		{"CRLF file, LF content", "a\r\nb\r\n", "x\ny\n", "x\r\ny\r\n"},
		{"LF file, CRLF content", "a\nb\n", "x\r\ny\r\n", "x\ny\n"},
		{"BOM kept", "\uFEFFa\n", "b\n", "\uFEFFb\n"},
		{"BOM not doubled", "\uFEFFa\r\n", "\uFEFFb\n", "\uFEFFb\r\n"},
		{"no line break to go by", "a", "x\r\ny", "x\r\ny"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("f.txt", tc.before)
			h.readWhole("f.txt")
			h.ok("write_file", writeArgs("f.txt", tc.content))
			if got := h.read("f.txt"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWriteFileUnchangedContentWritesNothing(t *testing.T) {
	h := newHarness(t)
	h.write("f.txt", "same\r\n")
	h.readWhole("f.txt")
	if got := h.ok("write_file", writeArgs("f.txt", "same\n")); !strings.Contains(got, "nothing was written") {
		t.Fatal(got)
	}
	if len(h.host.requests) != 0 {
		t.Fatal("asked to approve a no-op")
	}
}

func TestWriteFileRefusals(t *testing.T) {
	h := newHarness(t)
	h.write("bin.dat", "a\x00b")
	h.write("dir/x.txt", "x")
	outside := t.TempDir()
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"binary file", writeArgs("bin.dat", "text\n"), "binary file"},
		{"binary content", writeArgs("new.dat", "a\x00b"), "NUL bytes"},
		{"a directory", writeArgs("dir", "x\n"), "is a directory"},
		{"outside the workspace", writeArgs(filepath.Join(outside, "x.txt"), "x\n"), "outside the workspace"},
		{"escaping with ..", writeArgs("../x.txt", "x\n"), "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := h.fail("write_file", tc.args); !strings.Contains(msg, tc.want) {
				t.Fatal(msg)
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatal("wrote outside the workspace")
	}
}

func TestWriteFileNewFileUnderLinkedFolderOutsideRefused(t *testing.T) {
	h := newHarness(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(h.dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if msg := h.fail("write_file", writeArgs("escape/new.txt", "x\n")); !strings.Contains(msg, "outside the workspace") {
		t.Fatal(msg)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatal("wrote through a link to outside")
	}
}

func TestWriteFileThroughSymlinkUpdatesTarget(t *testing.T) {
	h := newHarness(t)
	target := h.write("real.txt", "old\n")
	link := filepath.Join(h.dir, "link.txt")
	os.Symlink("real.txt", link)
	h.readWhole("link.txt")
	h.ok("write_file", writeArgs("link.txt", "new\n"))
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("link replaced by a file")
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Fatalf("target = %q", b)
	}
}
