package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocateJudgesRealPaths(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	ws, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	root = ws.Primary()
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(root, "escape"))                          // a folder link out
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "s.txt"))  // a file link out
	os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "srclink"))      // a link that stays in
	os.Symlink(filepath.Join(outside, "gone"), filepath.Join(root, "dangling")) // points at nothing

	tests := []struct {
		path   string
		inside bool
	}{
		{"src/new.go", true},                 // a new file, real parent inside
		{"srclink/new.go", true},             // through a link that stays inside
		{"src/../../x", false},               // ".." out of the root
		{"escape/new.go", false},             // the new file's real parent is outside
		{"escape/../src/x", true},            // cleaned lexically first: escape/.. is the root
		{"s.txt", false},                     // a link to a file outside
		{filepath.Join(outside, "x"), false}, // absolute, outside
		{root, true},
	}
	for _, tt := range tests {
		loc, err := ws.Locate(tt.path)
		if err != nil {
			t.Errorf("Locate(%q): %v", tt.path, err)
			continue
		}
		if loc.Inside != tt.inside {
			t.Errorf("Locate(%q) inside=%v (real %s), want %v", tt.path, loc.Inside, loc.Real, tt.inside)
		}
	}
	if _, err := ws.Locate("dangling"); err == nil || !strings.Contains(err.Error(), "missing target") {
		t.Errorf("a dangling link must be refused, got %v", err)
	}
	for _, bad := range []string{"", "  ", "~/x", "a\x00b"} {
		if _, err := ws.Locate(bad); err == nil {
			t.Errorf("Locate(%q) accepted", bad)
		}
	}
}

func TestRelAndRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ws, err := New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := ws.Roots()[0].Path, ws.Roots()[1].Path
	if got := ws.Rel(filepath.Join(ra, "x", "y.go")); got != "x/y.go" {
		t.Errorf("Rel in primary = %q", got)
	}
	if got := ws.Rel(filepath.Join(rb, "z.go")); got != filepath.Join(rb, "z.go") {
		t.Errorf("Rel in second root = %q", got)
	}
	if !ws.Contains(filepath.Join(rb, "z.go")) || ws.Contains(ra+"-sibling/x") {
		t.Error("Contains must match whole path components")
	}
	if _, err := New(); err == nil {
		t.Error("no folders accepted")
	}
	f := filepath.Join(a, "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := New(f); err == nil {
		t.Error("a file accepted as a folder")
	}
}

// Real gives what the long way (filepath.EvalSymlinks, and for a missing
// file its deepest existing parent) gives, whichever way it takes.
func TestRealMatchesEvalSymlinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "b", "f.txt"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link"))
	os.Symlink(filepath.Join(root, "a", "b", "f.txt"), filepath.Join(root, "a", "flink"))
	for _, p := range []string{
		"a/b/f.txt", "a/b", "a", ".", "link/b/f.txt", "a/flink", "link", "a/b/new.txt", "link/new/deeper.txt",
		"a/b/f.txt/under", "a/../a/b/f.txt", "a//b/f.txt", "a/b/",
	} {
		abs := filepath.Join(root, p)
		if strings.Contains(p, "..") || strings.Contains(p, "//") || strings.HasSuffix(p, "/") {
			abs = root + "/" + p // as given, not cleaned
		}
		got, gotErr := Real(abs)
		want, wantErr := longReal(abs)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("Real(%s) = %q, %v; the long way gives %q, %v", p, got, gotErr, want, wantErr)
		}
	}
}

// longReal is Real without the one-call shortcut.
func longReal(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
		return "", err
	}
	parent, base := filepath.Split(abs)
	parent = filepath.Clean(parent)
	if parent == abs || base == "" {
		return "", err
	}
	realParent, perr := longReal(parent)
	if perr != nil {
		return "", perr
	}
	return filepath.Join(realParent, base), nil
}

// BenchmarkReal resolves a file six folders deep, both ways in one run.
func BenchmarkReal(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	dir := filepath.Join(root, "a", "b", "c", "d", "e", "f")
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "file.go")
	os.WriteFile(file, []byte("x"), 0o644)
	b.Run("Real", func(b *testing.B) {
		for b.Loop() {
			if _, err := Real(file); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("EvalSymlinks", func(b *testing.B) {
		for b.Loop() {
			if _, err := longReal(file); err != nil {
				b.Fatal(err)
			}
		}
	})
}
