package undo

import (
	"crypto/sha256"
	"os"
	"testing"
)

// TestWroteContentRecordsWhatWroteReadsBack: the state recorded from the
// bytes written is the one read back from the disk, and where the file
// no longer holds as many bytes, it is read back instead.
func TestWroteContentRecordsWhatWroteReadsBack(t *testing.T) {
	for _, tc := range []struct {
		name, written, onDisk string
	}{
		{"as written", "new content\n", "new content\n"},
		{"changed since, to another size", "new content\n", "someone else's longer content\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.put("a.txt", "old\n", 0o640)
			p := f.path("a.txt")
			if err := f.store.Save("r", p); err != nil {
				t.Fatal(err)
			}
			f.put("a.txt", tc.onDisk, 0o640)
			if err := f.store.WroteContent("r", p, []byte(tc.written), sha256.Sum256([]byte(tc.written))); err != nil {
				t.Fatal(err)
			}
			want, err := currentState(p)
			if err != nil {
				t.Fatal(err)
			}
			cp, err := f.store.current("r")
			if err != nil || cp == nil {
				t.Fatal(cp, err)
			}
			e := cp.lookup(p)
			if e == nil || e.wrote == nil {
				t.Fatalf("no record of what was written: %+v", e)
			}
			if got := *e.wrote; got.SHA != want.SHA || got.Size != want.Size || got.Mode != want.Mode || !got.Exists || got.Type != "" {
				t.Errorf("recorded %+v, want what is on the disk: %+v", got, want)
			}
			if fi, _ := os.Lstat(p); e.wrote.Mode != uint32(fi.Mode()&keptModeBits) {
				t.Errorf("mode %o, the file's %o", e.wrote.Mode, fi.Mode())
			}
		})
	}
}
