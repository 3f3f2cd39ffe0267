package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/tool"
)

// BenchmarkReadFile1MB is read_file of a whole 1 MB file through the
// registry (the lines, the gutter, the read record with its content hash
// and kept copy), side by side with the floor: os.ReadFile of the same
// file, alternating in each round. Reported: each side's time and their
// ratio.
func BenchmarkReadFile1MB(b *testing.B) {
	h := newHarness(&testing.T{})
	line := strings.Repeat("x", 79) + "\n"
	h.write("big.txt", strings.Repeat(line, (1<<20)/len(line)))
	path := filepath.Join(h.dir, "big.txt")
	var read, floor time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
		floor += time.Since(start)
		h.sess = tool.NewSession() // a fresh agent: no repeat guard, a new record
		start = time.Now()
		if r := h.callTuned("read_file", map[string]any{"path": "big.txt"}, func(c *tool.Call) { c.Budget = tool.NewBudget(1<<20, 0) }); r.IsError {
			b.Fatal(r.Content)
		}
		read += time.Since(start)
	}
	b.ReportMetric(float64(read.Nanoseconds())/float64(b.N), "read_file-ns/op")
	b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "os.ReadFile-ns/op")
	b.ReportMetric(float64(read)/float64(floor), "read_file/os.ReadFile")
}
