package undo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// journalOf is the one journal file of request req.
func (f *fixture) journalOf(req string) string {
	f.t.Helper()
	id, ok := f.store.CheckpointID(req)
	if !ok {
		f.t.Fatalf("request %s has no checkpoint", req)
	}
	return f.store.journalPath(id)
}

// reopen opens a second Store on the same folder, which reads the
// journals afresh.
func (f *fixture) reopen() *Store {
	f.t.Helper()
	s, err := Open(f.ws, Options{Dir: f.dir})
	f.must(err)
	f.t.Cleanup(func() { s.Close() })
	return s
}

// TestDamagedJournalIsReportedNeverEmpty damages one checkpoint's journal
// in the ways a disk or a person can: a byte flipped in a record, in its
// first record, in its last newline, and the file cut short. Each time the
// damaged checkpoint is listed as damaged, its undo says what it could not
// put back (never a clean success with nothing restored), and the other
// checkpoint still undoes.
func TestDamagedJournalIsReportedNeverEmpty(t *testing.T) {
	tests := []struct {
		name string
		harm func(data []byte) []byte
		// named says the damaged save still names its file, which undo
		// then reports as not put back.
		named bool
		// restored says a.txt's save survived (the damage hit another
		// record), so undo still puts it back.
		restored bool
	}{
		{"byte flipped in a save", func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"sha":"`))
			b[i+len(`"sha":"`)+8] ^= 0x01
			return b
		}, true, false},
		{"byte flipped in the first record", func(b []byte) []byte {
			b[15] ^= 0x20
			return b
		}, false, true},
		{"last newline flipped", func(b []byte) []byte {
			b[len(b)-1] = 'X'
			return b
		}, false, true},
		{"cut short after the first record", func(b []byte) []byte {
			return b[:bytes.IndexByte(b, '\n')+1]
		}, false, false},
		{"cut short mid-record", func(b []byte) []byte {
			return b[:bytes.IndexByte(b, '\n')+10]
		}, false, false},
		{"cut to nothing", func(b []byte) []byte { return b[:0] }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.put("old.txt", "old before\n", 0o644)
			f.put("a.txt", "a before\n", 0o644)
			f.edit("r1", "old.txt", "old by tether\n")
			f.edit("r2", "a.txt", "a by tether\n")
			j := f.journalOf("r2")
			data, err := os.ReadFile(j)
			f.must(err)
			f.must(os.WriteFile(j, tt.harm(data), 0o600))

			s := f.reopen()
			list, err := s.List()
			if err != nil || len(list) != 2 {
				t.Fatalf("List = %+v, %v; want both checkpoints", list, err)
			}
			damaged := list[0]
			if damaged.Damaged == "" || !strings.HasPrefix(damaged.Summary, "damaged") {
				t.Fatalf("the damaged checkpoint is listed as %+v", damaged)
			}
			if list[1].Damaged != "" {
				t.Fatalf("the sound checkpoint is listed as damaged: %+v", list[1])
			}
			if show, err := s.Show(damaged.ID); err != nil || !strings.Contains(show, "DAMAGED") {
				t.Errorf("Show of the damaged checkpoint: %v\n%s", err, show)
			}
			rep, err := s.Undo("")
			if err != nil {
				t.Fatal(err)
			}
			if rep.ID != damaged.ID || rep.Damaged == "" || len(rep.Conflicts) == 0 {
				t.Fatalf("undo of the damaged checkpoint reported %+v: it must not look clean", rep)
			}
			if tt.named && (len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "a.txt" || !strings.Contains(rep.Conflicts[0].Reason, "damaged")) {
				t.Errorf("conflicts = %+v, want a.txt as not put back", rep.Conflicts)
			}
			want := "a by tether\n"
			if tt.restored {
				want = "a before\n"
			}
			if got := f.read("a.txt"); got != want {
				t.Errorf("a.txt = %q, want %q", got, want)
			}
			// The other checkpoint still undoes.
			rep, err = s.Undo("")
			if err != nil || rep.Damaged != "" || len(rep.Restored) != 1 {
				t.Fatalf("undo of the sound checkpoint: %+v %v", rep, err)
			}
			if got := f.read("old.txt"); got != "old before\n" {
				t.Errorf("old.txt = %q", got)
			}
		})
	}
}

// A torn last line, as a crash mid-append leaves, is not damage.
func TestTornTailIsNotDamage(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "a\n", 0o644)
	f.edit("r", "a.txt", "b\n")
	j := f.journalOf("r")
	torn, err := encodeRecords(record{Kind: kindSave, Path: f.path("b.txt"), State: &fileState{}})
	f.must(err)
	fh, err := os.OpenFile(j, os.O_WRONLY|os.O_APPEND, 0)
	f.must(err)
	fh.Write(torn[:len(torn)/2])
	fh.Close()
	list, err := f.reopen().List()
	if err != nil || len(list) != 1 || list[0].Damaged != "" {
		t.Fatalf("List = %+v, %v; a torn tail is not damage", list, err)
	}
}

// A damaged checkpoint is frozen: the request's further changes start a
// new one, and the damage stays to be seen.
func TestDamagedCheckpointIsNotWrittenTo(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "a\n", 0o644)
	f.put("b.txt", "b\n", 0o644)
	f.edit("r", "a.txt", "a2\n")
	j := f.journalOf("r")
	data, _ := os.ReadFile(j)
	i := bytes.Index(data, []byte(`"kind":"save"`))
	data[i+20] ^= 0x01
	f.must(os.WriteFile(j, data, 0o600))
	s := f.reopen()
	f.store = s
	f.edit("r", "b.txt", "b2\n")
	list, err := s.List()
	if err != nil || len(list) != 2 || list[1].Damaged == "" || list[0].Damaged != "" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if after, _ := os.ReadFile(j); !bytes.Equal(after, data) {
		t.Fatal("the damaged journal was written to")
	}
}

// TestAbandonDropsWhatNeverHappened: a change that failed after its save
// leaves no entry; a checkpoint left empty goes; an entry an earlier change
// wrote stays, no longer pending.
func TestAbandonDropsWhatNeverHappened(t *testing.T) {
	f := newFixture(t, Options{})
	f.put("a.txt", "a\n", 0o644)
	new := f.path("dir/new.txt")
	f.must(f.store.Save("r", new))
	f.must(f.store.Abandon("r", new))
	if list, _ := f.store.List(); len(list) != 0 {
		t.Fatalf("a checkpoint of a change that never happened: %+v", list)
	}
	if _, ok := f.store.CheckpointID("r"); ok {
		t.Fatal("the request still has a checkpoint")
	}

	f.edit("r", "a.txt", "a2\n")
	f.must(f.store.Save("r", new))
	f.must(f.store.Save("r", f.path("a.txt"))) // a second change of a.txt starts...
	f.must(f.store.Abandon("r", new))
	f.must(f.store.Abandon("r", f.path("a.txt"))) // ...and fails
	list, _ := f.reopen().List()
	if len(list) != 1 || len(list[0].Files) != 1 || list[0].Files[0] != "a.txt" {
		t.Fatalf("List = %+v, want a.txt alone", list)
	}
	cp := f.store.cache[list[0].ID]
	if e := cp.byPath[f.path("a.txt")]; e == nil || e.pending {
		t.Fatalf("a.txt's entry: %+v", e)
	}
	rep, err := f.store.Undo("")
	if err != nil || len(rep.Conflicts) != 0 || len(rep.Replaced) != 0 || f.read("a.txt") != "a\n" {
		t.Fatalf("undo: %+v %v, a.txt = %q", rep, err, f.read("a.txt"))
	}
}

// TestRestoreIsConfined swaps a folder holding a changed file for a link
// to a place outside before undo: the restore fails closed, and nothing
// appears outside.
func TestRestoreIsConfined(t *testing.T) {
	f := newFixture(t, Options{})
	outside := t.TempDir()
	f.put("d/a.txt", "before\n", 0o644)
	f.edit("r", "d/a.txt", "after\n")
	f.edit("r", "d/new.txt", "created\n")
	f.must(os.Rename(f.path("d"), f.path("d.real")))
	f.must(os.Symlink(outside, f.path("d")))
	os.WriteFile(filepath.Join(outside, "a.txt"), []byte("after\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "new.txt"), []byte("created\n"), 0o644)

	rep, err := f.store.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Restored) != 0 || len(rep.Conflicts) != 2 {
		t.Fatalf("undo through a link out: %+v", rep)
	}
	for name, want := range map[string]string{"a.txt": "after\n", "new.txt": "created\n"} {
		if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != want {
			t.Errorf("outside %s = %q, %v: undo wrote outside the workspace", name, b, err)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 2 {
		t.Errorf("outside holds %v", entries)
	}
}

// TestRestoreRootsOption restores into every workspace folder it is given
// and leaves alone a file outside them.
func TestRestoreRootsOption(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	second, _ := filepath.EvalSymlinks(t.TempDir())
	elsewhere, _ := filepath.EvalSymlinks(t.TempDir())
	s, err := Open(ws, Options{Dir: filepath.Join(t.TempDir(), "undo"), Roots: []string{ws, second}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := &fixture{t: t, ws: ws, store: s}
	for _, p := range []string{filepath.Join(second, "b.txt"), filepath.Join(elsewhere, "c.txt")} {
		os.WriteFile(p, []byte("before\n"), 0o644)
		f.must(s.Save("r", p))
		os.WriteFile(p, []byte("after\n"), 0o644)
		f.must(s.Wrote("r", p))
	}
	rep, err := s.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(second, "b.txt")); string(b) != "before\n" {
		t.Errorf("the second folder's file was not restored: %q", b)
	}
	if len(rep.Conflicts) != 1 || !strings.Contains(rep.Conflicts[0].Reason, "outside the workspace folders") {
		t.Errorf("conflicts = %+v, want the file outside the folders left alone", rep.Conflicts)
	}
}
