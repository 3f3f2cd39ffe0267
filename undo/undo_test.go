package undo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every kind of change a request can make comes back byte-exact, mode included.
func TestUndoRestoresEachKindOfChange(t *testing.T) {
	tests := []struct {
		name   string
		before func(f *fixture)
		change func(f *fixture)
	}{
		{"edit", func(f *fixture) { f.put("a.go", "package a\n", 0o644) },
			func(f *fixture) { f.edit("r", "a.go", "package b\n") }},
		{"edit twice", func(f *fixture) { f.put("a.go", "one\n", 0o644) },
			func(f *fixture) { f.edit("r", "a.go", "two\n"); f.edit("r", "a.go", "three\n") }},
		{"create", func(f *fixture) {},
			func(f *fixture) { f.edit("r", "new.txt", "hello\n") }},
		{"create in new folder", func(f *fixture) {},
			func(f *fixture) { f.edit("r", "deep/er/new.txt", "x") }},
		{"delete", func(f *fixture) { f.put("old.txt", "keep me\n", 0o600) },
			func(f *fixture) { f.remove("r", "old.txt") }},
		{"delete then folder gone", func(f *fixture) { f.put("sub/old.txt", "x\n", 0o644) },
			func(f *fixture) { f.remove("r", "sub/old.txt"); f.must(os.Remove(f.path("sub"))) }},
		{"move", func(f *fixture) { f.put("from.txt", "moving\n", 0o640) },
			func(f *fixture) { f.move("r", "from.txt", "to/there.txt") }},
		{"move then edit", func(f *fixture) { f.put("a.txt", "A\n", 0o644) },
			func(f *fixture) { f.move("r", "a.txt", "b.txt"); f.edit("r", "b.txt", "B\n") }},
		{"move and create in its place", func(f *fixture) { f.put("a.txt", "A\n", 0o644) },
			func(f *fixture) { f.move("r", "a.txt", "b.txt"); f.edit("r", "a.txt", "new A\n") }},
		{"create then delete", func(f *fixture) {},
			func(f *fixture) { f.edit("r", "tmp.txt", "x"); f.remove("r", "tmp.txt") }},
		{"executable bit", func(f *fixture) { f.put("run.sh", "#!/bin/sh\n", 0o755) },
			func(f *fixture) { f.edit("r", "run.sh", "#!/bin/sh\nexit 1\n") }},
		{"mode only", func(f *fixture) { f.put("m.txt", "m", 0o644) },
			func(f *fixture) { f.chmod("r", "m.txt", 0o600) }},
		{"empty file", func(f *fixture) { f.put("empty", "", 0o644) },
			func(f *fixture) { f.edit("r", "empty", "now full") }},
		{"to empty", func(f *fixture) { f.put("full", "full", 0o644) },
			func(f *fixture) { f.edit("r", "full", "") }},
		{"binary and CRLF", func(f *fixture) { f.put("b.bin", "\x00\x01\r\n\xff\xfe\r\n", 0o644) },
			func(f *fixture) { f.edit("r", "b.bin", "\x00changed") }},
		{"no final newline", func(f *fixture) { f.put("n.txt", "a\nb", 0o644) },
			func(f *fixture) { f.edit("r", "n.txt", "a\nb\n") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.put("untouched.txt", "bystander\n", 0o644)
			tt.before(f)
			want := f.snapshot()
			tt.change(f)

			rep, err := f.store.Undo("")
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Conflicts) != 0 || len(rep.Replaced) != 0 {
				t.Errorf("conflicts %v, replaced %v; want none", rep.Conflicts, rep.Replaced)
			}
			f.expectSnapshot(want)
		})
	}
}

// Undo of several requests, newest first, walks the workspace back through
// each state.
func TestUndoNewestFirstWalksBack(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "0\n", 0o644)
	states := []snapshot{f.snapshot()}
	for i, req := range []string{"r1", "r2", "r3"} {
		f.edit(req, "a.txt", strings.Repeat("x", i+1))
		f.edit(req, req+".txt", req)
		states = append(states, f.snapshot())
	}
	for i := len(states) - 2; i >= 0; i-- {
		rep, err := f.store.Undo("")
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Conflicts) > 0 {
			t.Fatalf("undo %s: conflicts %v", rep.ID, rep.Conflicts)
		}
		f.expectSnapshot(states[i])
	}
	if _, err := f.store.Undo(""); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("Undo with everything undone: %v, want 'nothing to undo'", err)
	}
}

// A file someone else changed after Tether wrote it is left alone,
// reported, and its earlier content stays readable; the rest is restored.
func TestUndoLeavesLaterChangesAlone(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *fixture) // Tether's change to x.txt
		later  func(f *fixture) // what the user did afterwards
		reason string
	}{
		{"edited after edit",
			func(f *fixture) { f.edit("r", "x.txt", "tether\n") },
			func(f *fixture) { f.put("x.txt", "user\n", 0o644) },
			"changed after Tether wrote it"},
		{"deleted after edit",
			func(f *fixture) { f.edit("r", "x.txt", "tether\n") },
			func(f *fixture) { f.must(os.Remove(f.path("x.txt"))) },
			"deleted after Tether wrote it"},
		{"recreated after delete",
			func(f *fixture) { f.remove("r", "x.txt") },
			func(f *fixture) { f.put("x.txt", "user's new file\n", 0o644) },
			"appeared there after Tether removed it"},
		{"mode changed after edit",
			func(f *fixture) { f.edit("r", "x.txt", "tether\n") },
			func(f *fixture) { f.must(os.Chmod(f.path("x.txt"), 0o755)) },
			"permissions changed"},
		{"replaced by a folder",
			func(f *fixture) { f.remove("r", "x.txt") },
			func(f *fixture) { f.must(os.Mkdir(f.path("x.txt"), 0o755)) },
			"no longer a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.put("x.txt", "original\n", 0o644)
			f.put("y.txt", "y before\n", 0o644)
			tt.change(f)
			f.edit("r", "y.txt", "y by tether\n")
			tt.later(f)
			afterUser := f.snapshot()

			rep, err := f.store.Undo("")
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "x.txt" || !strings.Contains(rep.Conflicts[0].Reason, tt.reason) {
				t.Fatalf("conflicts = %+v, want x.txt: %q", rep.Conflicts, tt.reason)
			}
			if !slices.Equal(rep.Restored, []string{"y.txt"}) {
				t.Errorf("restored = %v, want [y.txt]", rep.Restored)
			}
			if got := f.read("y.txt"); got != "y before\n" {
				t.Errorf("y.txt = %q, want it restored", got)
			}
			// x.txt is exactly as the user left it.
			now := f.snapshot()
			delete(now, "y.txt")
			delete(afterUser, "y.txt")
			for _, d := range diffSnapshots(afterUser, now) {
				t.Error("user's change was touched:", d)
			}

			list, err := f.store.List()
			if err != nil || len(list) != 1 || !list[0].Undone {
				t.Fatalf("List = %+v, %v; want one undone checkpoint", list, err)
			}
			shown, err := f.store.Show(rep.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(shown, "x.txt was not put back") || !strings.Contains(shown, "+original") {
				t.Errorf("Show after undo does not offer x.txt's earlier content:\n%s", shown)
			}
		})
	}
}

func TestUndoTwiceIsAnError(t *testing.T) {
	f := newFixture(t, Options{})
	f.edit("r", "a.txt", "a")
	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	f.put("a.txt", "user wrote this", 0o644)
	_, err = f.store.Undo(rep.ID)
	if err == nil || !strings.Contains(err.Error(), "already undone") {
		t.Fatalf("second Undo(%s) = %v, want 'already undone'", rep.ID, err)
	}
	if got := f.read("a.txt"); got != "user wrote this" {
		t.Errorf("a second undo touched the file: %q", got)
	}
}

func TestUndoPicksByID(t *testing.T) {
	f := newFixture(t, Options{})
	f.edit("r1", "a.txt", "1")
	f.edit("r2", "b.txt", "2")
	id1, _ := f.store.CheckpointID("r1")
	id2, _ := f.store.CheckpointID("r2")

	tests := []struct {
		name, id string
		wantErr  string
	}{
		{"unknown", "nope", "no checkpoint"},
		{"ambiguous prefix", commonPrefix(id1, id2), "matches 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.store.Undo(tt.id); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Undo(%q) = %v, want %q", tt.id, err, tt.wantErr)
			}
		})
	}
	// The older one, by exact id, while the newer stays.
	rep, err := f.store.Undo(id1)
	if err != nil || rep.ID != id1 {
		t.Fatalf("Undo(%s) = %+v, %v", id1, rep, err)
	}
	if _, err := os.Stat(f.path("a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt still there after undoing its creation")
	}
	if f.read("b.txt") != "2" {
		t.Errorf("b.txt was touched by undoing another request")
	}
	// "" now means the newest not undone: r2.
	if rep, err := f.store.Undo(""); err != nil || rep.ID != id2 {
		t.Errorf("Undo(\"\") = %+v, %v; want %s", rep, err, id2)
	}
}

func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[:i]
}

// Tether's process died after writing a file but before recording the
// write: undo cannot know whose the content is, so it puts the request back
// and keeps that content in the checkpoint.
func TestUnconfirmedWriteIsRestoredAndKept(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "before\n", 0o644)
	f.must(f.store.Save("r", f.path("a.txt")))
	f.put("a.txt", "written, never confirmed\n", 0o644)

	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Replaced, []string{"a.txt"}) || !slices.Equal(rep.Restored, []string{"a.txt"}) {
		t.Errorf("report = %+v, want a.txt restored and replaced", rep)
	}
	if got := f.read("a.txt"); got != "before\n" {
		t.Errorf("a.txt = %q, want it restored", got)
	}
	shown, err := f.store.Show(rep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown, "+written, never confirmed") {
		t.Errorf("Show does not offer the replaced content:\n%s", shown)
	}
}

// A Save whose change never happened (the write failed) leaves nothing to do.
func TestSavedButUnchangedIsNoOp(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "same\n", 0o644)
	f.must(f.store.Save("r", f.path("a.txt")))
	f.must(f.store.Save("r", f.path("never-created.txt")))
	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts)+len(rep.Replaced) != 0 || len(rep.Restored) != 2 {
		t.Errorf("report = %+v, want both simply restored", rep)
	}
	if f.read("a.txt") != "same\n" {
		t.Error("a.txt changed")
	}
}

// Damaged saved content is never written back.
func TestDamagedBlobIsNotRestored(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "precious\n", 0o644)
	f.edit("r", "a.txt", "changed\n")
	err := filepath.WalkDir(filepath.Join(f.dir, "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			return os.WriteFile(p, []byte("garbage!!\n"), 0o600)
		}
		return err
	})
	f.must(err)
	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts) != 1 || !strings.Contains(rep.Conflicts[0].Reason, "damaged") {
		t.Errorf("conflicts = %+v, want a damaged-content conflict", rep.Conflicts)
	}
	if got := f.read("a.txt"); got != "changed\n" {
		t.Errorf("a.txt = %q, want it left as it was", got)
	}
	if matches, _ := filepath.Glob(f.path(".a.txt.tether-undo-*")); len(matches) > 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}

// Folders a request created for a new file go when undo removes it; a
// folder the user has since put a file in stays, with that file, and so do
// folders that were there before.
func TestUndoRemovesFoldersTheRequestCreated(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("kept/old.txt", "x\n", 0o644)
	f.edit("r1", "kept/deep/er/new.txt", "x")
	f.edit("r1", "fresh/a/b.txt", "y")
	f.move("r1", "kept/old.txt", "moved/to/old.txt")
	f.put("fresh/mine.txt", "the user's\n", 0o644)
	rep, err := f.store.Undo("")
	if err != nil || len(rep.Conflicts) != 0 {
		t.Fatalf("undo: %v %+v", err, rep)
	}
	for _, gone := range []string{"kept/deep", "fresh/a", "moved"} {
		if _, err := os.Stat(f.path(gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, stays := range []string{"kept", "fresh/mine.txt", "kept/old.txt"} {
		if _, err := os.Stat(f.path(stays)); err != nil {
			t.Errorf("%s is gone: %v", stays, err)
		}
	}
}
