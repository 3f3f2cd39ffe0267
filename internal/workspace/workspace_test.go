package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

func TestFileURIsAreAbsolutePaths(t *testing.T) {
	root := t.TempDir()
	ws, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	root = ws.Primary()
	uri := "file://" + filepath.ToSlash(filepath.Join(root, "src", "a b.go"))
	uri = strings.ReplaceAll(uri, " ", "%20")
	for _, arg := range []string{uri, strings.Replace(uri, "file://", "FILE://", 1), strings.Replace(uri, "file://", "file://localhost", 1)} {
		abs, err := ws.Abs(arg)
		if err != nil || abs != filepath.Join(root, "src", "a b.go") {
			t.Errorf("Abs(%q) = %q, %v", arg, abs, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "file:")); !os.IsNotExist(err) {
		t.Fatal("a folder named file: exists")
	}
	for _, bad := range []string{"file://otherhost/etc/passwd", "file://", "file://%00x"} {
		if _, err := ws.Abs(bad); !errors.Is(err, ErrURI) {
			t.Errorf("Abs(%q) = %v, want ErrURI", bad, err)
		}
	}
	// A name that merely starts with "file:" stays a relative name.
	if abs, err := ws.Abs("file:notes.txt"); err != nil || abs != filepath.Join(root, "file:notes.txt") {
		t.Errorf("Abs(file:notes.txt) = %q, %v", abs, err)
	}
}

func TestCheckNewNameRefusesControlCharacters(t *testing.T) {
	for _, name := range []string{"a\nb.txt", "a\rb", "tab\there", "esc\x1b[31m", "del\x7f", "nel\u0085", "ls\u2028x", "ps\u2029x"} {
		if err := CheckNewName(name); !errors.Is(err, ErrControlChar) {
			t.Errorf("CheckNewName(%q) = %v, want ErrControlChar", name, err)
		}
	}
	for _, name := range []string{"a.txt", "dir/ü ñ 日本.go", "with space", "quote\"and\\back"} {
		if err := CheckNewName(name); err != nil {
			t.Errorf("CheckNewName(%q) = %v", name, err)
		}
	}
}

func TestConfineGivesTheRootAndTheNameBelowIt(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ws, err := New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := ws.Roots()[0].Path, ws.Roots()[1].Path
	root, rel, err := ws.Confine(filepath.Join(rb, "x", "y.go"))
	if err != nil || rel != filepath.Join("x", "y.go") || root.Name() != rb {
		t.Fatalf("Confine in the second root: %v %q %v", root, rel, err)
	}
	if _, rel, err := ws.Confine(ra); err != nil || rel != "." {
		t.Fatalf("Confine of the root itself: %q %v", rel, err)
	}
	if _, _, err := ws.Confine(ra + "-sibling/x"); !errors.Is(err, ErrOutside) {
		t.Fatalf("Confine of a prefix sibling: %v", err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	root, rel, _ = ws.Confine(filepath.Join(ra, "f"))
	if _, err := root.Create(rel); err == nil {
		t.Fatal("a closed workspace still writes")
	}
}

// TestCaseFoldingRoots judges containment and keys as a file system that
// ignores case would, on a folder detected as one.
func TestCaseFoldingRoots(t *testing.T) {
	saved := foldsCase
	foldsCase = func(string) bool { return true }
	t.Cleanup(func() { foldsCase = saved })
	dir := t.TempDir()
	ws, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	root := ws.Primary()
	upper := strings.ToUpper(root)
	if upper == root {
		t.Skip("the temporary folder's path has no letters")
	}
	if !ws.Contains(filepath.Join(upper, "A.go")) {
		t.Error("a path spelt in another case is outside")
	}
	if ws.Key(filepath.Join(root, "A.go")) != ws.Key(filepath.Join(root, "a.go")) {
		t.Error("A.go and a.go have different keys")
	}
	if _, rel, err := ws.Confine(filepath.Join(upper, "Sub", "A.go")); err != nil || rel != filepath.Join("Sub", "A.go") {
		t.Errorf("Confine in another case: %q %v", rel, err)
	}
	if ws.Contains(upper + "X/a.go") {
		t.Error("a prefix sibling is inside")
	}
}

// TestFoldsCaseDetection looks at the real file system of a temporary
// folder: an entry under its swapped-case name is either the same file
// (case ignored) or absent (case kept).
func TestFoldsCaseDetection(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Probe.txt"), nil, 0o644)
	_, err := os.Stat(filepath.Join(dir, "pROBE.TXT"))
	want := err == nil
	if got := foldsCase(dir); got != want {
		t.Errorf("foldsCase = %v, but the file system answers %v", got, want)
	}
	ws, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Roots()[0].FoldsCase != want {
		t.Errorf("Root.FoldsCase = %v, want %v", ws.Roots()[0].FoldsCase, want)
	}
}

func TestPaths(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ws, err := New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	got := ws.Paths()
	if len(got) != 2 || got[0] != ws.Primary() || got[1] != ws.Roots()[1].Path {
		t.Fatalf("Paths = %v", got)
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

// A write root is a folder outside the workspace that changes may reach:
// what lies in it (real path) is inside for tools, beneath its own
// os.Root; a sibling that starts with its name, or a link in it that leads
// elsewhere, is not. It is not a workspace folder: relative paths, the
// folders listed and the primary stay the workspace's.
func TestWriteRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	sib := filepath.Join(base, "sibling")
	for _, d := range []string{ws, sib, sib + "-evil", filepath.Join(base, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(sib, "out")); err != nil {
		t.Fatal(err)
	}
	w, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.AddWriteRoots(sib); err != nil {
		t.Fatal(err)
	}
	for p, inside := range map[string]bool{
		filepath.Join(sib, "a.go"):         true,
		filepath.Join(sib, "new", "b.go"):  true,
		filepath.Join(sib+"-evil", "a.go"): false,
		filepath.Join(sib, "out", "c.go"):  false,
		filepath.Join(sib, "..", "x"):      false,
		filepath.Join(ws, "d.go"):          true,
	} {
		loc, err := w.Locate(p)
		if err != nil {
			t.Fatal(err)
		}
		if loc.Inside != inside {
			t.Errorf("%s: inside %v, want %v", p, loc.Inside, inside)
		}
	}
	root, rel, err := w.Confine(filepath.Join(sib, "new", "b.go"))
	if err != nil || rel != filepath.Join("new", "b.go") || root.Name() != sib {
		t.Fatalf("Confine: %v %q %v", root, rel, err)
	}
	if w.Primary() != ws || len(w.Paths()) != 1 || !slices.Equal(w.WriteRoots(), []string{sib}) {
		t.Errorf("primary %s, paths %v, write roots %v", w.Primary(), w.Paths(), w.WriteRoots())
	}
	if got, _ := w.Abs("x.go"); got != filepath.Join(ws, "x.go") {
		t.Errorf("a relative path resolved to %s", got)
	}
	for _, bad := range []string{filepath.Join(base, "missing"), filepath.Join(sib, "..", "ws", "file"), "relative"} {
		if err := w.AddWriteRoots(bad); err == nil {
			t.Errorf("%s was taken as a write root", bad)
		}
	}
}

// A folder of a write root swapped for a link to a place outside, after
// the path was judged, cannot carry a write there: the write goes through
// the root's own handle.
func TestWriteRootConfinesASwappedFolder(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, sib, away := filepath.Join(base, "ws"), filepath.Join(base, "sib"), filepath.Join(base, "away")
	for _, d := range []string{ws, filepath.Join(sib, "d"), away} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.AddWriteRoots(sib); err != nil {
		t.Fatal(err)
	}
	loc, err := w.Locate(filepath.Join(sib, "d", "x.txt"))
	if err != nil || !loc.Inside {
		t.Fatalf("%+v %v", loc, err)
	}
	root, rel, err := w.Confine(loc.Real)
	if err != nil {
		t.Fatal(err)
	}
	// The swap, after the check.
	if err := os.Remove(filepath.Join(sib, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(away, filepath.Join(sib, "d")); err != nil {
		t.Fatal(err)
	}
	f, err := root.OpenFile(rel, os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		f.Close()
		t.Fatal("a write through the swapped folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(away, "x.txt")); !os.IsNotExist(err) {
		t.Fatal("a file was written outside the write root")
	}
}
