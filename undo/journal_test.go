package undo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDecodeLine(t *testing.T) {
	good, err := encodeRecords(record{Kind: kindSave, Path: "/x", State: &fileState{Exists: true, SHA: "ab"}})
	if err != nil {
		t.Fatal(err)
	}
	line := good[:len(good)-1]
	tests := []struct {
		name string
		line string
		ok   bool
	}{
		{"good", string(line), true},
		{"torn", string(line[:len(line)-5]), false},
		{"flipped byte", string(line[:20]) + "X" + string(line[21:]), false},
		{"no checksum", string(line[9:]), false},
		{"bad checksum digits", "zzzzzzzz " + string(line[9:]), false},
		{"zeros", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ok := decodeLine([]byte(tt.line))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if ok && (rec.Kind != kindSave || rec.Path != "/x" || rec.State.SHA != "ab") {
				t.Errorf("decoded %+v", rec)
			}
		})
	}
}

// A crash mid-append leaves a torn last line: readers skip it, and the next
// append cuts it off instead of gluing a good line to it.
func TestTornTailIsIgnoredAndCutBeforeAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.journal")
	if _, err := createJournal(path, record{Kind: kindBegin, ID: "x"}, record{Kind: kindSave, Path: "/a", State: &fileState{}}); err != nil {
		t.Fatal(err)
	}
	torn, err := encodeRecords(record{Kind: kindSave, Path: "/b", State: &fileState{}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(torn[:len(torn)/2])
	f.Close()

	sc, err := readJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, goodLen, size := sc.recs, sc.goodLen, sc.size
	if len(recs) != 2 || goodLen == size || sc.damaged != 0 {
		t.Fatalf("read %d records, good %d of %d bytes; want 2 records and a torn tail", len(recs), goodLen, size)
	}
	if _, err := appendJournal(path, goodLen, size, true, record{Kind: kindSave, Path: "/c", State: &fileState{}}); err != nil {
		t.Fatal(err)
	}
	sc, err = readJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, goodLen, size = sc.recs, sc.goodLen, sc.size
	if len(recs) != 3 || recs[2].Path != "/c" || goodLen != size {
		t.Fatalf("after append: %d records (%+v), good %d of %d", len(recs), recs, goodLen, size)
	}
}

// A journal whose first line never made it to disk is not a checkpoint.
func TestJournalWithoutBeginning(t *testing.T) {
	for _, recs := range [][]record{
		nil,
		{{Kind: kindSave, Path: "/a", State: &fileState{}}},
		{{Kind: kindBegin}},
	} {
		if _, ok := build(recs); ok {
			t.Errorf("build(%+v) made a checkpoint", recs)
		}
	}
}

// Records out of place are ignored: a second save keeps the first state,
// a write of a path never saved is dropped, nothing follows an undo.
func TestBuildKeepsFirstState(t *testing.T) {
	first := fileState{Exists: true, SHA: "1"}
	cp, ok := build([]record{
		{Kind: kindBegin, ID: "x"},
		{Kind: kindSave, Path: "/a", State: &first},
		{Kind: kindSave, Path: "/a", State: &fileState{Exists: true, SHA: "2"}},
		{Kind: kindWrote, Path: "/never-saved", State: &fileState{}},
		{Kind: kindUndone},
		{Kind: kindSave, Path: "/late", State: &fileState{}},
	})
	if !ok {
		t.Fatal("no checkpoint")
	}
	if len(cp.entries) != 1 || !reflect.DeepEqual(cp.entries[0].prior, first) {
		t.Errorf("entries = %+v, want only /a with its first state", cp.entries)
	}
	if cp.undone == nil {
		t.Error("undone record lost")
	}
}
