package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestSaveKeepsTheStateBeforeTheRequest(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "v0", 0o644)
	f.edit("r", "a.txt", "v1")
	f.edit("r", "a.txt", "v2")
	f.must(f.store.Save("r", f.path("a.txt"))) // a third Save changes nothing
	if _, err := f.store.Undo(""); err != nil {
		t.Fatal(err)
	}
	if got := f.read("a.txt"); got != "v0" {
		t.Errorf("a.txt = %q, want v0", got)
	}
}

// The second change of a path in one request is interrupted after its
// write: undo must still see Tether's content, not a stranger's.
func TestSecondChangeInterruptedBeforeWrote(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "v0", 0o644)
	f.edit("r", "a.txt", "v1")
	f.must(f.store.Save("r", f.path("a.txt")))
	f.put("a.txt", "v2", 0o644) // no Wrote: the process died here

	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts) != 0 || f.read("a.txt") != "v0" {
		t.Errorf("report %+v, a.txt %q; want it restored to v0", rep, f.read("a.txt"))
	}
}

// The same interruption, when the second write never happened, needs no
// content kept: what is there is Tether's first, recorded write.
func TestSecondChangeThatNeverHappened(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "v0", 0o644)
	f.edit("r", "a.txt", "v1")
	f.must(f.store.Save("r", f.path("a.txt")))
	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Replaced) != 0 || len(rep.Conflicts) != 0 || f.read("a.txt") != "v0" {
		t.Errorf("report %+v, a.txt %q; want a plain restore", rep, f.read("a.txt"))
	}
}

func TestSaveRefusals(t *testing.T) {
	f := newFixture(t, Options{})
	f.must(os.Mkdir(f.path("dir"), 0o755))
	f.put("target", "t", 0o644)
	f.must(os.Symlink(f.path("target"), f.path("link")))
	tests := []struct {
		name, req, path, want string
	}{
		{"empty request", "", f.path("a"), "request id is empty"},
		{"relative path", "r", "a.txt", "not an absolute path"},
		{"directory", "r", f.path("dir"), "not a regular file"},
		{"symlink", "r", f.path("link"), "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.store.Save(tt.req, tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Save(%q, %q) = %v, want %q", tt.req, tt.path, err, tt.want)
			}
		})
	}
	if list, _ := f.store.List(); len(list) != 0 {
		t.Errorf("refused saves left checkpoints: %+v", list)
	}
}

func TestWroteWithoutSave(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "a", 0o644)
	if err := f.store.Wrote("r", f.path("a.txt")); err == nil || !strings.Contains(err.Error(), "without being saved") {
		t.Errorf("Wrote without Save = %v", err)
	}
}

func TestCheckpointID(t *testing.T) {
	f := newFixture(t, Options{})
	if id, ok := f.store.CheckpointID("r"); ok {
		t.Errorf("CheckpointID before any change = %q", id)
	}
	f.edit("r", "a.txt", "a")
	id, ok := f.store.CheckpointID("r")
	if !ok {
		t.Fatal("no checkpoint after a change")
	}
	f.edit("r", "b.txt", "b")
	if again, _ := f.store.CheckpointID("r"); again != id {
		t.Errorf("one request got two checkpoints: %s, %s", id, again)
	}
	list, err := f.store.List()
	if err != nil || len(list) != 1 || list[0].ID != id || !slices.Equal(list[0].Files, []string{"a.txt", "b.txt"}) {
		t.Errorf("List = %+v, %v", list, err)
	}
}

// CheckpointID names the checkpoint of the changes made through this
// Store: another Store opened on the same folder that changed nothing for
// the request has none to name (it reads no journal to look), and names
// the same one once it changes a file under the request too.
func TestCheckpointIDIsThisStoresChanges(t *testing.T) {
	f := newFixture(t, Options{})
	f.edit("r", "a.txt", "a")
	id, ok := f.store.CheckpointID("r")
	if !ok {
		t.Fatal("no checkpoint after a change")
	}
	other, err := Open(f.ws, Options{Dir: f.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if got, ok := other.CheckpointID("r"); ok {
		t.Errorf("a Store that changed nothing names checkpoint %s", got)
	}
	p := f.path("b.txt")
	if err := other.Save("r", p); err != nil {
		t.Fatal(err)
	}
	if got, ok := other.CheckpointID("r"); !ok || got != id {
		t.Errorf("after a change under the same request, the other Store names %q, %v; want %s", got, ok, id)
	}
}

// Changes of a request after its checkpoint was undone start a new one:
// an undone checkpoint is frozen.
func TestRequestAfterUndoStartsNewCheckpoint(t *testing.T) {
	f := newFixture(t, Options{})
	f.edit("r", "a.txt", "a")
	first, _ := f.store.CheckpointID("r")
	if _, err := f.store.Undo(first); err != nil {
		t.Fatal(err)
	}
	f.edit("r", "b.txt", "b")
	second, _ := f.store.CheckpointID("r")
	if second == first {
		t.Fatal("a change went into an undone checkpoint")
	}
	rep, err := f.store.Undo("")
	if err != nil || rep.ID != second || !slices.Equal(rep.Restored, []string{"b.txt"}) {
		t.Errorf("Undo = %+v, %v", rep, err)
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *fixture)
		want   string
	}{
		{"each kind", func(f *fixture) {
			f.edit("r", "a.go", "x")
			f.edit("r", "b.go", "new")
			f.remove("r", "c.txt")
		}, "edited a.go, created b.go, deleted c.txt"},
		{"move", func(f *fixture) { f.move("r", "c.txt", "d/c.txt") }, "moved c.txt to d/c.txt"},
		{"unconfirmed", func(f *fixture) { f.must(f.store.Save("r", f.path("a.go"))) }, "touched a.go"},
		{"many", func(f *fixture) {
			for i := range 8 {
				f.edit("r", fmt.Sprintf("n%d.go", i), "x")
			}
			f.edit("r", "a.go", "x")
		}, "created 8 files, edited 1 file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.put("a.go", "a", 0o644)
			f.put("c.txt", "c", 0o644)
			tt.change(f)
			list, err := f.store.List()
			if err != nil || len(list) != 1 {
				t.Fatalf("List = %+v, %v", list, err)
			}
			if list[0].Summary != tt.want {
				t.Errorf("Summary = %q, want %q", list[0].Summary, tt.want)
			}
		})
	}
}

func TestListNewestFirst(t *testing.T) {
	f := newFixture(t, Options{})
	for _, r := range []string{"r1", "r2", "r3"} {
		f.edit(r, r, r)
	}
	list, err := f.store.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list {
		got = append(got, c.RequestID)
	}
	if !slices.Equal(got, []string{"r3", "r2", "r1"}) {
		t.Errorf("List order = %v, want newest first", got)
	}
}

func TestShowBeforeUndo(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "one\ntwo\n", 0o644)
	f.put("gone.txt", "bye\n", 0o755)
	f.edit("r", "a.txt", "one\nTWO\n")
	f.edit("r", "new.txt", "fresh\n")
	f.remove("r", "gone.txt")
	f.chmod("r", "a.txt", 0o600)
	f.edit("r", "mine.txt", "tether\n")
	f.put("mine.txt", "user\n", 0o644)
	before := f.snapshot()

	shown, err := f.store.Show("")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--- a/a.txt\n+++ b/a.txt\n", "-TWO\n+two\n", "old mode 100600\nnew mode 100644\n",
		"--- a/new.txt\n+++ /dev/null\n", "-fresh\n",
		"--- /dev/null\n+++ b/gone.txt\n", "+bye\n",
		"# mine.txt: left alone: it was changed after Tether wrote it",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("Show lacks %q:\n%s", want, shown)
		}
	}
	for _, d := range diffSnapshots(before, f.snapshot()) {
		t.Error("Show changed the workspace:", d)
	}
}

func TestShowAfterCleanUndo(t *testing.T) {
	f := newFixture(t, Options{})
	f.edit("r", "a.txt", "a")
	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := f.store.Show(rep.ID)
	if err != nil || !strings.Contains(shown, "was undone") || !strings.Contains(shown, "Every file was put back") {
		t.Errorf("Show = %q, %v", shown, err)
	}
}

// Only the newest Keep checkpoints stay, with exactly the contents they use.
func TestRetention(t *testing.T) {
	tests := []struct {
		keep, requests, want int
	}{
		{keep: 3, requests: 6, want: 3},
		{keep: 1, requests: 3, want: 1},
		{keep: 0, requests: DefaultKeep + 2, want: DefaultKeep},
		{keep: 5, requests: 2, want: 2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("keep %d of %d", tt.keep, tt.requests), func(t *testing.T) {
			f := newFixture(t, Options{Keep: tt.keep})
			f.put("a.txt", "a0", 0o644)
			for i := 1; i <= tt.requests; i++ {
				f.edit(fmt.Sprintf("r%d", i), "a.txt", fmt.Sprintf("a%d", i))
				f.edit(fmt.Sprintf("r%d", i), fmt.Sprintf("own%d.txt", i), "x")
			}
			list, err := f.store.List()
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != tt.want || list[0].RequestID != fmt.Sprintf("r%d", tt.requests) {
				t.Fatalf("kept %d checkpoints starting with %s, want the newest %d", len(list), list[0].RequestID, tt.want)
			}
			// Each kept request saved a.txt's previous content; the files it
			// created need none.
			if n := countBlobs(t, f.dir); n != tt.want {
				t.Errorf("%d blobs stored, want %d", n, tt.want)
			}
			if journals, _ := filepath.Glob(filepath.Join(f.dir, "checkpoints", "*")); len(journals) != tt.want {
				t.Errorf("%d journals on disk, want %d", len(journals), tt.want)
			}
			// What is kept still undoes.
			for range tt.want {
				if _, err := f.store.Undo(""); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := f.read("a.txt"), fmt.Sprintf("a%d", tt.requests-tt.want); got != want {
				t.Errorf("a.txt = %q after undoing the kept checkpoints, want %q", got, want)
			}
		})
	}
}

// A content two checkpoints share survives the removal of one of them.
func TestRetentionKeepsSharedContent(t *testing.T) {
	f := newFixture(t, Options{Keep: 1})
	f.put("a.txt", "shared", 0o644)
	f.put("b.txt", "shared", 0o644)
	f.edit("r1", "a.txt", "x")
	f.edit("r2", "b.txt", "y") // r1 goes; its content is r2's too
	rep, err := f.store.Undo("")
	if err != nil || len(rep.Conflicts) > 0 {
		t.Fatalf("Undo = %+v, %v", rep, err)
	}
	if got := f.read("b.txt"); got != "shared" {
		t.Errorf("b.txt = %q, want shared", got)
	}
}

// Debris of a crash (a temporary blob, a journal with no first line, a
// blob written just before the crash and never recorded) goes when a Store
// next opens the folder; blobs in use stay.
func TestOpenSweepsCrashDebris(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "a", 0o644)
	f.edit("r1", "a.txt", "b")
	f.edit("r2", "a.txt", "c")
	debris := []string{
		filepath.Join(f.dir, "blobs", blobTempPrefix+"123"),
		filepath.Join(f.dir, "checkpoints", journalTempPrefix+"456"),
	}
	f.must(os.WriteFile(debris[0], []byte("half"), 0o600))
	f.must(os.WriteFile(debris[1], []byte("0000"), 0o600))
	orphan := blobStore{dir: filepath.Join(f.dir, "blobs")}
	sha, _, err := orphan.put(strings.NewReader("never recorded"))
	f.must(err)
	debris = append(debris, orphan.path(sha))
	// The writer that left it died: its marker stays, naming a process
	// that is not running.
	f.must(os.WriteFile(filepath.Join(f.dir, "writers", "2147483646-dead"), nil, 0o600))

	again, err := Open(f.ws, Options{Dir: f.dir})
	f.must(err)
	defer again.Close()
	for _, p := range debris {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived the sweep", filepath.Base(p))
		}
	}
	if n := countBlobs(t, f.dir); n != 2 {
		t.Errorf("%d blobs, want 2 (a and b)", n)
	}
	if list, err := again.List(); err != nil || len(list) != 2 {
		t.Errorf("List = %+v, %v; want both checkpoints", list, err)
	}
}

// The contents are swept only after a writer died: a Store that writes
// marks itself first and removes its mark when it closes, so a store left
// by writers that all closed is opened without reading its contents (an
// unrecorded blob there is left alone), and one whose writer died is swept
// and its mark removed.
func TestOpenSweepsContentsOnlyAfterAWriterDied(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "a", 0o644)
	f.edit("r1", "a.txt", "b")
	marks, err := os.ReadDir(filepath.Join(f.dir, "writers"))
	if err != nil || len(marks) != 1 || !strings.HasPrefix(marks[0].Name(), fmt.Sprint(os.Getpid(), "-")) {
		t.Fatalf("a writing Store's marks: %v, %v; want one named after this process", marks, err)
	}
	f.must(f.store.Close())
	if marks, _ := os.ReadDir(filepath.Join(f.dir, "writers")); len(marks) != 0 {
		t.Fatalf("marks after Close: %v", marks)
	}
	orphan := blobStore{dir: filepath.Join(f.dir, "blobs")}
	sha, _, err := orphan.put(strings.NewReader("not recorded, no writer died"))
	f.must(err)
	quiet, err := Open(f.ws, Options{Dir: f.dir})
	f.must(err)
	f.must(quiet.Close())
	if _, err := os.Stat(orphan.path(sha)); err != nil {
		t.Fatalf("the contents were swept though no writer died: %v", err)
	}
	dead := filepath.Join(f.dir, "writers", "2147483646-dead")
	f.must(os.WriteFile(dead, nil, 0o600))
	swept, err := Open(f.ws, Options{Dir: f.dir})
	f.must(err)
	defer swept.Close()
	if _, err := os.Stat(orphan.path(sha)); !os.IsNotExist(err) {
		t.Errorf("the unrecorded blob survived a dead writer's sweep: %v", err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead writer's mark stayed: %v", err)
	}
	if n := countBlobs(t, f.dir); n != 1 {
		t.Errorf("%d blobs, want 1 (a)", n)
	}
}

// Content a dropped checkpoint no longer uses is swept by the next Store
// to open the folder, though no writer died.
func TestOpenSweepsContentADroppedCheckpointLeft(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "saved, then not changed", 0o644)
	f.must(f.store.Save("r1", filepath.Join(f.ws, "a.txt")))
	if n := countBlobs(t, f.dir); n != 1 {
		t.Fatalf("%d blobs after the save, want 1", n)
	}
	f.must(f.store.Abandon("r1", filepath.Join(f.ws, "a.txt")))
	f.must(f.store.Close())
	again, err := Open(f.ws, Options{Dir: f.dir})
	f.must(err)
	defer again.Close()
	if n := countBlobs(t, f.dir); n != 0 {
		t.Errorf("%d blobs after the dropped checkpoint, want 0", n)
	}
	if marks, _ := os.ReadDir(filepath.Join(f.dir, "writers")); len(marks) != 0 {
		t.Errorf("marks left after the sweep: %v", marks)
	}
}

// Identical content is stored once, whatever file or request it came from.
func TestIdenticalContentStoredOnce(t *testing.T) {
	f := newFixture(t, Options{})
	for i := range 5 {
		f.put(fmt.Sprintf("f%d.txt", i), "same bytes\n", 0o644)
	}
	for i := range 5 {
		f.edit(fmt.Sprintf("r%d", i%2), fmt.Sprintf("f%d.txt", i), "changed")
	}
	if n := countBlobs(t, f.dir); n != 1 {
		t.Errorf("%d blobs for one content, want 1", n)
	}
}

// What the store holds depends on the files touched, not on the workspace:
// a large workspace with one file changed costs that one file.
func TestCostFollowsTouchedFilesOnly(t *testing.T) {
	f := newFixture(t, Options{})
	for i := range 300 {
		f.put(fmt.Sprintf("pkg%d/file%d.go", i%10, i), strings.Repeat(fmt.Sprintf("line %d\n", i), 200), 0o644)
	}
	f.edit("r", "pkg3/file3.go", "small")
	var total int64
	filepath.WalkDir(filepath.Join(f.dir, "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			total += fi.Size()
		}
		return err
	})
	want := int64(len(strings.Repeat("line 3\n", 200)))
	if total != want {
		t.Errorf("store holds %d bytes of content, want %d (the one file touched)", total, want)
	}
}

func TestOpenDefaultsToXDGState(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ws := t.TempDir()
	s, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rel, err := filepath.Rel(state, s.Dir())
	if err != nil || !strings.HasPrefix(rel, filepath.Join("tether", "projects")) || filepath.Base(rel) != "undo" {
		t.Errorf("store at %s, want under %s/tether/projects/<key>/undo", s.Dir(), state)
	}
	if fi, err := os.Stat(s.Dir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("store folder mode = %v, %v; want private (0700)", fi.Mode().Perm(), err)
	}
}

func TestOpenRefusals(t *testing.T) {
	tests := []struct {
		name string
		root string
		opts Options
	}{
		{"negative keep", t.TempDir(), Options{Keep: -1, Dir: t.TempDir()}},
		{"missing project folder", filepath.Join(t.TempDir(), "nope"), Options{Dir: t.TempDir()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := Open(tt.root, tt.opts); err == nil {
				s.Close()
				t.Error("Open succeeded")
			}
		})
	}
}

func TestClosedStoreRefuses(t *testing.T) {
	f := newFixture(t, Options{})
	f.must(f.store.Close())
	if err := f.store.Save("r", f.path("a")); err == nil {
		t.Error("Save on a closed store succeeded")
	}
	if _, err := f.store.List(); err == nil {
		t.Error("List on a closed store succeeded")
	}
}

// Two Stores on one folder (two editor windows), each used from many
// goroutines, on shared and separate requests: every change is recorded
// once, journals stay readable, and everything undoes.
func TestConcurrentStores(t *testing.T) {
	f := newFixture(t, Options{})
	other, err := Open(f.ws, Options{Dir: f.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	const workers, files = 8, 6
	for w := range workers {
		for i := range files {
			f.put(fmt.Sprintf("w%d/f%d.txt", w, i), "original", 0o644)
		}
	}
	f.put("shared.txt", "original", 0o644)
	initial := f.snapshot()

	var wg sync.WaitGroup
	errs := make(chan error, workers*files*4)
	for w := range workers {
		store := []*Store{f.store, other}[w%2]
		req := fmt.Sprintf("req%d", w%3) // requests span both stores
		wg.Go(func() {
			for i := range files {
				p := f.path(fmt.Sprintf("w%d/f%d.txt", w, i))
				for _, step := range []func() error{
					func() error { return store.Save(req, p) },
					func() error { return os.WriteFile(p, []byte(fmt.Sprintf("w%d", w)), 0o644) },
					func() error { return store.Wrote(req, p) },
					// Every worker also saves the same path; only one may win.
					func() error { return store.Save(req, f.path("shared.txt")) },
				} {
					if err := step(); err != nil {
						errs <- err
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	list, err := other.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("%d checkpoints, want one per request (3): %+v", len(list), list)
	}
	seen := map[string]int{}
	for _, c := range list {
		for _, p := range c.Files {
			seen[p]++
		}
	}
	for w := range workers {
		for i := range files {
			if n := seen[fmt.Sprintf("w%d/f%d.txt", w, i)]; n != 1 {
				t.Errorf("w%d/f%d.txt recorded %d times", w, i, n)
			}
		}
	}
	if seen["shared.txt"] != 3 {
		t.Errorf("shared.txt recorded %d times, want once per request", seen["shared.txt"])
	}
	for i := range list {
		rep, err := []*Store{f.store, other}[i%2].Undo("")
		if err != nil || len(rep.Conflicts) > 0 {
			t.Fatalf("Undo = %+v, %v", rep, err)
		}
	}
	f.expectSnapshot(initial)
}

// Every file the store opens is closed again, on success and on failure.
func TestNoFileHandleLeak(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	openFiles := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	ws := t.TempDir()
	dir := t.TempDir()
	before := openFiles()
	f := &fixture{t: t, ws: ws, dir: dir}
	s, err := Open(ws, Options{Dir: dir, Keep: 2})
	f.must(err)
	f.store = s
	f.put("a.txt", "a", 0o644)
	for i := range 4 {
		f.edit(fmt.Sprint("r", i), "a.txt", fmt.Sprint(i))
	}
	f.must(os.Mkdir(f.path("d"), 0o755))
	s.Save("r9", f.path("d")) // refused: a directory
	s.Show("")
	s.List()
	s.Undo("")
	s.Undo("nope")
	f.must(s.Close())
	if after := openFiles(); after != before {
		t.Errorf("%d files open after closing the store, %d before", after, before)
	}
}
