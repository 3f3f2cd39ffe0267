package undo

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/overlay/overlaytest"
)

// applySet changes the fixture's workspace the way a command's change set
// is applied: SaveSet first, then the changes, then WroteSet and Applied.
func (f *fixture) applySet(req string, paths []string, change func()) {
	f.t.Helper()
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = f.path(p)
	}
	f.must(f.store.SaveSet(req, abs, "a command's changes"))
	change()
	f.must(f.store.WroteSet(req, abs))
	f.must(f.store.Applied(req))
}

func TestSetOfEveryKindIsUndoneExactly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newFixture(t, Options{})
	f.put("a.txt", "alpha\n", 0o644)
	f.put("run.sh", "echo hi\n", 0o644)
	f.put("d/x.txt", "x\n", 0o600)
	f.put("d/sub/y.txt", "y\n", 0o644)
	f.put("e/z.txt", "z\n", 0o644)
	f.must(os.Symlink("a.txt", f.path("link")))
	f.must(os.Symlink("a.txt", f.path("gone-link")))
	f.must(os.Mkdir(f.path("empty"), 0o750))
	f.must(os.Chmod(f.path("d"), 0o755))
	before := overlaytest.Tree(t, f.ws)

	paths := []string{
		"a.txt", "run.sh", "link", "gone-link", "newlink", "empty",
		"d/sub/y.txt", "d/sub", "d/x.txt", "d",
		"n", "n/m", "n/m/one", "n/two",
		"e/z.txt", "e", "a2",
	}
	f.applySet("r1", paths, func() {
		f.must(os.WriteFile(f.path("a.txt"), []byte("ALPHA\n"), 0o644))
		f.must(os.Chmod(f.path("run.sh"), 0o755))
		f.must(os.Remove(f.path("link")))
		f.must(os.Symlink("run.sh", f.path("link")))
		f.must(os.Remove(f.path("gone-link")))
		f.must(os.Symlink("n/two", f.path("newlink")))
		f.must(os.Remove(f.path("empty")))
		f.must(os.RemoveAll(f.path("d")))
		f.must(os.MkdirAll(f.path("n/m"), 0o755))
		f.must(os.WriteFile(f.path("n/m/one"), []byte("1\n"), 0o644))
		f.must(os.WriteFile(f.path("n/two"), []byte("2\n"), 0o644))
		// a folder becomes a file
		f.must(os.RemoveAll(f.path("e")))
		f.must(os.WriteFile(f.path("e"), []byte("now a file\n"), 0o644))
		// a new file with a link to it
		f.must(os.WriteFile(f.path("a2"), []byte("a2\n"), 0o644))
	})
	after := overlaytest.Tree(t, f.ws)
	if len(overlaytest.DiffTrees(before, after)) == 0 {
		t.Fatal("the change did nothing")
	}
	cps, err := f.store.List()
	f.must(err)
	if len(cps) != 1 || cps[0].Interrupted != "" {
		t.Fatalf("checkpoints: %+v", cps)
	}
	if !strings.Contains(cps[0].Summary, "created") || !strings.Contains(cps[0].Summary, "deleted") {
		t.Errorf("summary: %q", cps[0].Summary)
	}
	rep, err := f.store.Undo("")
	f.must(err)
	if len(rep.Conflicts) != 0 {
		t.Errorf("conflicts: %+v", rep.Conflicts)
	}
	for _, d := range overlaytest.DiffTrees(before, overlaytest.Tree(t, f.ws)) {
		t.Error("after undo: " + d)
	}
}

// A folder a command made, in which the user then put a file, stays with
// that file; the rest of the set is put back.
func TestSetUndoKeepsWhatOthersAddedToANewFolder(t *testing.T) {
	f := newFixture(t, Options{})
	f.applySet("r1", []string{"n", "n/a"}, func() {
		f.must(os.Mkdir(f.path("n"), 0o755))
		f.must(os.WriteFile(f.path("n/a"), []byte("a"), 0o644))
	})
	f.put("n/user.txt", "mine", 0o644)
	rep, err := f.store.Undo("")
	f.must(err)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "n" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	if f.read("n/user.txt") != "mine" {
		t.Error("the user's file is gone")
	}
	if _, err := os.Stat(f.path("n/a")); !os.IsNotExist(err) {
		t.Errorf("the command's file is still there: %v", err)
	}
}

// A set whose process died before Applied is listed as interrupted, and
// undo puts back what was applied, content of unknown origin kept.
func TestInterruptedSet(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "old a\n", 0o644)
	f.put("b.txt", "old b\n", 0o644)
	before := overlaytest.Tree(t, f.ws)
	f.must(f.store.SaveSet("r1", []string{f.path("a.txt"), f.path("b.txt"), f.path("c.txt"), f.path("n"), f.path("n/f")}, "the changes of `make`"))
	// Some were applied, then the process died.
	f.must(os.WriteFile(f.path("a.txt"), []byte("new a\n"), 0o644))
	f.must(os.WriteFile(f.path("c.txt"), []byte("new c\n"), 0o644))
	f.must(os.Mkdir(f.path("n"), 0o755))
	f.must(os.WriteFile(f.path("n/f"), []byte("f\n"), 0o644))

	f.store.Close()
	s, err := Open(f.ws, Options{Dir: f.dir})
	f.must(err)
	defer s.Close()
	cps, err := s.List()
	f.must(err)
	if len(cps) != 1 || !strings.Contains(cps[0].Interrupted, "the changes of `make` (5 paths)") {
		t.Fatalf("the interrupted set is not reported: %+v", cps)
	}
	show, err := s.Show("")
	f.must(err)
	if !strings.Contains(show, "INTERRUPTED") {
		t.Errorf("show does not say it:\n%s", show)
	}
	rep, err := s.Undo("")
	f.must(err)
	if len(rep.Conflicts) != 0 {
		t.Errorf("conflicts: %+v", rep.Conflicts)
	}
	for _, d := range overlaytest.DiffTrees(before, overlaytest.Tree(t, f.ws)) {
		t.Error("after undo: " + d)
	}
}

func TestSetAsideIsKeptAndShown(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "the user's\n", 0o644)
	f.must(f.store.SetAside("r1", f.path("a.txt"), strings.NewReader("the command's\n"), 0o644, "the user changed it while the command ran"))
	cps, err := f.store.List()
	f.must(err)
	if len(cps) != 1 || cps[0].Damaged != "" || !strings.Contains(cps[0].Summary, "set aside a.txt") {
		t.Fatalf("checkpoints: %+v", cps)
	}
	show, err := f.store.Show("")
	f.must(err)
	if !strings.Contains(show, "+the command's") || !strings.Contains(show, "the user changed it while the command ran") {
		t.Errorf("show:\n%s", show)
	}
	// Garbage collection keeps the content it needs.
	f.store.Close()
	s, err := Open(f.ws, Options{Dir: f.dir})
	f.must(err)
	defer s.Close()
	if show2, err := s.Show(""); err != nil || show2 != show {
		t.Errorf("after reopening: %v\n%s", err, show2)
	}
	if n := countBlobs(t, f.dir); n != 1 {
		t.Errorf("%d blobs kept, want the command's version", n)
	}
}
