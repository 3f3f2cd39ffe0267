//go:build unix

package undo

import (
	"os"
	"syscall"
	"testing"
)

// TestUndoKeepsOwnerAndAttributes: the file undo puts back keeps the owner
// and extended attributes of the file it replaces (root only, for the
// owner).
func TestUndoKeepsOwnerAndAttributes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file another owner; CI runs the tests as root")
	}
	f := newFixture(t, Options{})
	f.put("theirs.txt", "before\n", 0o664)
	p := f.path("theirs.txt")
	f.must(os.Chown(p, 65534, 65534))
	f.edit("r", "theirs.txt", "after\n")
	if _, err := f.store.Undo(""); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	f.must(err)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 {
		t.Fatalf("after undo the file is owned by %d:%d, want 65534:65534", st.Uid, st.Gid)
	}
	if f.read("theirs.txt") != "before\n" {
		t.Fatalf("content %q", f.read("theirs.txt"))
	}
}
