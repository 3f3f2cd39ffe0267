package fsatomic

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, p, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// noTemps fails if a temporary file of ours is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tether-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileKeepsModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	write(t, p, "old", 0o755)
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
	noTemps(t, dir)
	if err := WriteFile(dir, []byte("x"), 0o644); err == nil {
		t.Fatal("writing over a directory must fail")
	}
}

func TestWriteKeepsSpecialModeBits(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	for _, mode := range []fs.FileMode{0o755 | fs.ModeSetuid, 0o755 | fs.ModeSetgid, 0o644 | fs.ModeSticky, 0o600} {
		p := filepath.Join(dir, "f")
		write(t, p, "old", mode.Perm())
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Mode()&KeptMode != mode {
			t.Skipf("this file system does not hold mode %v (got %v)", mode, fi.Mode())
		}
		if err := WriteFileIn(root, "f", []byte("new"), 0o644); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if fi, _ := os.Stat(p); fi.Mode()&KeptMode != mode {
			t.Errorf("mode %v became %v", mode, fi.Mode()&KeptMode)
		}
	}
}

func TestWriteRefusesReadOnlyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "locked.txt")
	write(t, p, "old", 0o444)
	err := WriteFileIn(openRoot(t, dir), "locked.txt", []byte("new"), 0o644)
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("writing a 0444 file: %v, want ErrReadOnly", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("the read-only file was rewritten: %q", b)
	}
	fi, _ := os.Stat(p)
	if !IsReadOnly(fi) {
		t.Error("IsReadOnly says no for 0444")
	}
	noTemps(t, dir)
}

func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	write(t, a, "a", 0o644)
	write(t, b, "b", 0o644)
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
	// Across two roots, into a subfolder.
	other := t.TempDir()
	os.Mkdir(filepath.Join(other, "sub"), 0o755)
	if err := RenameNoReplaceIn(openRoot(t, dir), "c", openRoot(t, other), filepath.Join("sub", "c2")); err != nil {
		t.Fatal(err)
	}
	if x, _ := os.ReadFile(filepath.Join(other, "sub", "c2")); string(x) != "a" {
		t.Fatalf("moved content %q", x)
	}
}

func TestRenameNoReplaceStaysInside(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, "f"), "data", 0o644)
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, ws)
	if err := RenameNoReplaceIn(root, "f", root, filepath.Join("link", "f")); err == nil {
		t.Fatal("a rename through a link out of the root succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something appeared outside: %v", entries)
	}
}

func TestWriteFileInStaysInside(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, ws)
	if err := WriteFileIn(root, filepath.Join("escape", "f.txt"), []byte("x"), 0o644); err == nil {
		t.Fatal("a write through a link out of the root succeeded")
	}
	if created, err := MkdirAllIn(root, filepath.Join("escape", "deep"), 0o755); err == nil {
		t.Fatalf("mkdir through a link out of the root succeeded: %v", created)
	}
	if err := RemoveIn(root, filepath.Join("escape", "x")); err == nil {
		t.Fatal("remove through a link out of the root succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something appeared outside: %v", entries)
	}
}

// TestWriteFileInSwapRace swaps a folder of the root for a link to a place
// outside and back, as fast as it can, while writes into it loop: every
// write either lands inside or fails, and nothing, not even a temporary
// file, appears outside.
func TestWriteFileInSwapRace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(ws, "d")
	aside := filepath.Join(ws, "d.real")
	os.Mkdir(dir, 0o755)
	root := openRoot(t, ws)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Folder out, link in; link out, folder back.
			if os.Rename(dir, aside) == nil {
				os.Symlink(outside, dir)
				time.Sleep(50 * time.Microsecond)
				os.Remove(dir)
				os.Rename(aside, dir)
				time.Sleep(50 * time.Microsecond)
			}
		}
	}()
	wrote, failed := 0, 0
	for i := range 2000 {
		err := WriteFileIn(root, filepath.Join("d", "f.txt"), []byte(strconv.Itoa(i)), 0o644)
		if err == nil {
			wrote++
		} else {
			failed++
		}
	}
	close(stop)
	<-done
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Fatalf("files appeared outside the root: %v", entries)
	}
	t.Logf("%d writes landed, %d failed closed", wrote, failed)
}

func TestSweepTempsRemovesOnlyDeadWriters(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "f.txt")
	write(t, target, "real", 0o644)
	// A pid that cannot be running (beyond the kernel's pid limit).
	dead := filepath.Join(dir, ".f.txt.tether-2147483646-123")
	live := filepath.Join(dir, ".f.txt.tether-"+strconv.Itoa(os.Getpid())+"-456")
	other := filepath.Join(dir, ".g.txt.tether-2147483646-789")
	unparsable := filepath.Join(dir, ".f.txt.tether-123")
	for _, p := range []string{dead, live, other, unparsable} {
		write(t, p, "partial", 0o600)
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
	write(t, dead, "partial", 0o600)
	if err := WriteFile(target, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatal("a write did not clear a dead writer's temporary file")
	}
	// And beneath a root, by a name relative to it.
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	write(t, filepath.Join(dir, "sub", ".g.tether-2147483646-1"), "partial", 0o600)
	got, err := SweepTempsIn(openRoot(t, dir), filepath.Join("sub", "g"))
	if err != nil || len(got) != 1 || got[0] != filepath.Join("sub", ".g.tether-2147483646-1") {
		t.Fatalf("SweepTempsIn removed %v (%v)", got, err)
	}
}

// A symbolic link taken in from a command's layer is made under a
// temporary name and renamed into place: one a killed Tether left is swept
// like a file, without following it; a dead writer's folder of that name
// is not Tether's and stays.
func TestSweepTempsRemovesALinkNotItsTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "link")
	outside := filepath.Join(t.TempDir(), "kept.txt")
	write(t, outside, "kept", 0o644)
	tmpLink := filepath.Join(dir, ".link.tether-2147483646-aa")
	if err := os.Symlink(outside, tmpLink); err != nil {
		t.Fatal(err)
	}
	tmpDir := filepath.Join(dir, ".link.tether-2147483646-bb")
	if err := os.Mkdir(tmpDir, 0o755); err != nil {
		t.Fatal(err)
	}
	removed, err := SweepTemps(target)
	if err != nil || len(removed) != 1 || removed[0] != tmpLink {
		t.Fatalf("removed %v (%v), want only %s", removed, err, tmpLink)
	}
	if _, err := os.Lstat(tmpLink); !os.IsNotExist(err) {
		t.Error("the temporary link is still there")
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "kept" {
		t.Errorf("the link's target changed: %q, %v", b, err)
	}
	if _, err := os.Stat(tmpDir); err != nil {
		t.Error("a folder was removed")
	}
}

func TestMkdirAllInReportsWhatItCreated(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "a"), 0o755)
	root := openRoot(t, dir)
	created, err := MkdirAllIn(root, filepath.Join("a", "b", "c"), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join("a", "b"), filepath.Join("a", "b", "c")}
	if strings.Join(created, "|") != strings.Join(want, "|") {
		t.Fatalf("created %v, want %v", created, want)
	}
	if again, err := MkdirAllIn(root, filepath.Join("a", "b", "c"), 0o755); err != nil || len(again) != 0 {
		t.Fatalf("second MkdirAllIn created %v (%v)", again, err)
	}
	RemoveCreated(root, created)
	if _, err := os.Stat(filepath.Join(dir, "a", "b")); !os.IsNotExist(err) {
		t.Fatal("RemoveCreated left a/b")
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		t.Fatal("RemoveCreated removed a folder it had not created")
	}
	// A folder someone filled meanwhile stays.
	created, _ = MkdirAllIn(root, filepath.Join("a", "x", "y"), 0o755)
	write(t, filepath.Join(dir, "a", "x", "keep"), "k", 0o644)
	RemoveCreated(root, created)
	if _, err := os.Stat(filepath.Join(dir, "a", "x", "keep")); err != nil {
		t.Fatal("RemoveCreated removed a folder holding a file")
	}
	write(t, filepath.Join(dir, "file"), "f", 0o644)
	if _, err := MkdirAllIn(root, filepath.Join("file", "sub"), 0o755); err == nil {
		t.Fatal("MkdirAllIn through a file succeeded")
	}
}

func TestDurabilityErrorWhenTheFolderSyncFails(t *testing.T) {
	if !dirSyncWorks {
		t.Skip("folders are not synced on this platform")
	}
	dir := t.TempDir()
	root := openRoot(t, dir)
	write(t, filepath.Join(dir, "f"), "old", 0o644)
	failing := errors.New("injected: the disk did not confirm")
	syncFile = func(*os.File) error { return failing }
	t.Cleanup(func() { syncFile = (*os.File).Sync })

	err := WriteFileIn(root, "f", []byte("new"), 0o644)
	var de *DurabilityError
	if !errors.As(err, &de) || !errors.Is(err, failing) || !Done(err) {
		t.Fatalf("write with a failing folder sync: %v, want a DurabilityError", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "new" {
		t.Fatalf("the rename happened, so the file must hold the new content; it holds %q", b)
	}
	if err := RenameNoReplaceIn(root, "f", root, "g"); !errors.As(err, &de) || de.Op != "rename" {
		t.Fatalf("rename with a failing folder sync: %v", err)
	}
	if err := RemoveIn(root, "g"); !errors.As(err, &de) || de.Op != "remove" {
		t.Fatalf("remove with a failing folder sync: %v", err)
	}
	if Done(errors.New("other")) || !Done(nil) {
		t.Fatal("Done misreads plain errors")
	}
}
