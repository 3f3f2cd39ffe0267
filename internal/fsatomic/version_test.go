package fsatomic

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// SameVersion holds for a file untouched since its stat, and not once it
// was replaced, grown, rewritten in place at the same size, or chmodded.
func TestSameVersion(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stat := func() os.FileInfo {
		t.Helper()
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	write("hello")
	then := stat()
	if !SameVersion(then, stat()) {
		t.Fatal("an untouched file is not the same version")
	}
	if SameVersion(nil, then) || SameVersion(then, nil) {
		t.Fatal("a missing stat is the same version")
	}

	write("hello, world")
	if SameVersion(then, stat()) {
		t.Fatal("a grown file is the same version")
	}

	// Past the file system's timestamp tick, so that only the content
	// could tell the two writes apart.
	then = stat()
	time.Sleep(30 * time.Millisecond)
	write("HELLO, WORLD")
	if SameVersion(then, stat()) {
		t.Fatal("a file rewritten in place at the same size is the same version")
	}

	then = stat()
	if err := WriteFile(p, []byte("HELLO, WORLD"), 0o644); err != nil { // same bytes, a new file renamed over it
		t.Fatal(err)
	}
	if SameVersion(then, stat()) {
		t.Fatal("a file replaced by another is the same version")
	}

	then = stat()
	time.Sleep(30 * time.Millisecond)
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if SameVersion(then, stat()) {
		t.Fatal("a chmodded file is the same version")
	}
}
