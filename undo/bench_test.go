package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
