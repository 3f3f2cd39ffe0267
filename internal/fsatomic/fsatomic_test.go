package fsatomic

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestWriteFileKeepsModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	os.WriteFile(p, []byte("old"), 0o755)
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if b, _ := os.ReadFile(p); string(b) != "new" || fi.Mode().Perm() != 0o755 {
		t.Fatalf("content %q mode %v", b, fi.Mode())
	}
	n := filepath.Join(dir, "fresh.txt")
	if err := WriteFile(n, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(n); fi.Mode().Perm() != 0o640 {
		t.Fatalf("new file mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tether-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
	if err := WriteFile(dir, []byte("x"), 0o644); err == nil {
		t.Fatal("writing over a directory must fail")
	}
}

func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("a"), 0o644)
	os.WriteFile(b, []byte("b"), 0o644)
	if err := RenameNoReplace(a, b); !errors.Is(err, ErrExists) {
		t.Fatalf("rename over an existing file: %v", err)
	}
	if x, _ := os.ReadFile(b); string(x) != "b" {
		t.Fatal("the target was overwritten")
	}
	c := filepath.Join(dir, "c")
	if err := RenameNoReplace(a, c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Fatal("the source is still there")
	}
	if err := linkRename(c, b); !errors.Is(err, ErrExists) {
		t.Fatalf("the link fallback must refuse an existing target too: %v", err)
	}
}

func TestSweepTempsRemovesOnlyDeadWriters(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "f.txt")
	os.WriteFile(target, []byte("real"), 0o644)
	// A pid that cannot be running (beyond the kernel's pid limit).
	dead := filepath.Join(dir, ".f.txt.tether-2147483646-123")
	live := filepath.Join(dir, ".f.txt.tether-"+strconv.Itoa(os.Getpid())+"-456")
	other := filepath.Join(dir, ".g.txt.tether-2147483646-789")
	unparsable := filepath.Join(dir, ".f.txt.tether-123")
	for _, p := range []string{dead, live, other, unparsable} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	removed, err := SweepTemps(target)
	if err != nil || len(removed) != 1 || removed[0] != dead {
		t.Fatalf("removed %v (%v), want only %s", removed, err, dead)
	}
	for _, p := range []string{live, other, unparsable, target} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
	// Writing the file sweeps too.
	os.WriteFile(dead, []byte("partial"), 0o600)
	if err := WriteFile(target, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatal("a write did not clear a dead writer's temporary file")
	}
}
