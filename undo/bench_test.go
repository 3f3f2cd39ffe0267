package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// BenchmarkCheckpointOneFile is what a request's first change of a 20 KB
// file costs in undo bookkeeping: Save before, Wrote after, durably.
func BenchmarkCheckpointOneFile(b *testing.B) {
	ws, dir := b.TempDir(), b.TempDir()
	s, err := Open(ws, Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	p := filepath.Join(ws, "file.go")
	if err := os.WriteFile(p, []byte(strings.Repeat("x := 1\n", 3000)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(3000 * 7)
	for i := 0; b.Loop(); i++ {
		req := fmt.Sprintf("r%d", i)
		if err := s.Save(req, p); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := fsatomic.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("x := %d\n", i), 3000)), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Wrote(req, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUndo100Files undoes a request that edited 100 files of 4 KB.
func BenchmarkUndo100Files(b *testing.B) {
	ws, dir := b.TempDir(), b.TempDir()
	s, err := Open(ws, Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	paths := make([]string, 100)
	for i := range paths {
		paths[i] = filepath.Join(ws, fmt.Sprintf("f%03d.go", i))
		if err := os.WriteFile(paths[i], []byte(strings.Repeat(fmt.Sprintf("// file %d\n", i), 400)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		req := fmt.Sprintf("r%d", i)
		for _, p := range paths {
			if err := s.Save(req, p); err != nil {
				b.Fatal(err)
			}
			if err := fsatomic.WriteFile(p, []byte(req), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := s.Wrote(req, p); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		rep, err := s.Undo("")
		if err != nil || len(rep.Restored) != 100 {
			b.Fatalf("Undo = %d restored, %v", len(rep.Restored), err)
		}
	}
}

// BenchmarkReadJournal reads the journal of a request that overwrote one
// file 1,000 times (a save, then an again and a wrote record for each
// change), as opening the store does for every checkpoint it keeps.
func BenchmarkReadJournal(b *testing.B) {
	st := fileState{Exists: true, SHA: strings.Repeat("3c", 32), Size: 1 << 20, Mode: 0o644}
	recs := []record{{Kind: kindBegin, ID: "20261203-102909-34dfeb", Request: "r", Time: time.Now()}, {Kind: kindSave, Path: "/ws/big.go", State: &st}}
	for range 1000 {
		recs = append(recs, record{Kind: kindAgain, Path: "/ws/big.go"}, record{Kind: kindWrote, Path: "/ws/big.go", State: &st})
	}
	lines, err := encodeRecords(recs...)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "j.journal")
	if err := os.WriteFile(path, lines, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(lines)))
	for b.Loop() {
		sc, err := readJournal(path)
		if err != nil || len(sc.recs) != len(recs) || sc.damaged != 0 {
			b.Fatal(err, len(sc.recs), sc.damaged)
		}
	}
}
