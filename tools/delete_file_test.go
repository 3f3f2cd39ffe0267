package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDeleteFileNeedsWholeFileRead(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "1\n2\n3\n")
	if msg := h.fail("delete_file", map[string]any{"path": "a.txt"}); !strings.Contains(msg, "before you delete it") {
		t.Fatal(msg)
	}
	h.ok("read_file", map[string]any{"path": "a.txt", "offset": 1, "limit": 2})
	if msg := h.fail("delete_file", map[string]any{"path": "a.txt"}); !strings.Contains(msg, "not 3") {
		t.Fatal(msg)
	}
	h.ok("read_file", map[string]any{"path": "a.txt", "offset": 3})
	if got := h.ok("delete_file", map[string]any{"path": "a.txt"}); !strings.Contains(got, "Deleted a.txt (3 lines)") {
		t.Fatal(got)
	}
	if h.exists("a.txt") {
		t.Fatal("not deleted")
	}
	// The record went with the file: a new file there starts unread.
	h.write("a.txt", "new\n")
	if msg := h.fail("edit_file", editArgs("a.txt", "new", "x")); !strings.Contains(msg, "before you edit it") {
		t.Fatal(msg)
	}
}

func TestDeleteFileRefusesStaleFile(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "a\n")
	h.readWhole("a.txt")
	h.write("a.txt", "changed since\n")
	if msg := h.fail("delete_file", map[string]any{"path": "a.txt"}); !strings.Contains(msg, "changed on disk") {
		t.Fatal(msg)
	}
	if !h.exists("a.txt") {
		t.Fatal("deleted")
	}
}

func TestDeleteFileRefusesADirectory(t *testing.T) {
	h := newHarness(t)
	h.write("dir/x.txt", "x\n")
	if msg := h.fail("delete_file", map[string]any{"path": "dir"}); !strings.Contains(msg, "never deletes directories") {
		t.Fatal(msg)
	}
	if !h.exists("dir/x.txt") {
		t.Fatal("directory touched")
	}
}

func TestDeleteFileRefusesASymlink(t *testing.T) {
	h := newHarness(t)
	h.write("target.txt", "keep\n")
	os.Symlink("target.txt", filepath.Join(h.dir, "link.txt"))
	h.readWhole("link.txt")
	if msg := h.fail("delete_file", map[string]any{"path": "link.txt"}); !strings.Contains(msg, "is a symbolic link (to target.txt)") {
		t.Fatal(msg)
	}
	if !h.exists("link.txt") || h.read("target.txt") != "keep\n" {
		t.Fatal("link or target removed")
	}
}

func TestDeleteFileOnlyInsideWorkspace(t *testing.T) {
	h := newHarness(t)
	outside := filepath.Join(t.TempDir(), "o.txt")
	os.WriteFile(outside, []byte("o\n"), 0o644)
	h.readWhole(outside) // reading outside is allowed (the host says yes); deleting is not
	if msg := h.fail("delete_file", map[string]any{"path": outside}); !strings.Contains(msg, "outside the workspace") {
		t.Fatal(msg)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatal("outside file deleted")
	}
}

func TestDeleteFileRefusesBinary(t *testing.T) {
	h := newHarness(t)
	h.write("b.bin", "\x00\x01")
	if msg := h.fail("delete_file", map[string]any{"path": "b.bin"}); !strings.Contains(msg, "binary file") {
		t.Fatal(msg)
	}
}
