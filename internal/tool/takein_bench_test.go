package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/protocol"
)

// BenchmarkTakeIn1000NewFiles times taking in 1,000 new files from an
// upper layer: read, classify, checkpoint, apply, record. The layer is
// filled directly (new files need no overlay to describe them), outside
// the timer. bench/capture prints it beside the floor of moving the files
// in at all.
func BenchmarkTakeIn1000NewFiles(b *testing.B) {
	f := newCapture(b, protocol.ModeBypass, map[string]string{"keep.txt": "k\n"})
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		set, err := overlay.Allocate(project.StateDir(f.env.Workspace.Primary()), f.folders)
		if err != nil {
			b.Fatal(err)
		}
		fillUpper(b, set.Layers[0], 1000)
		if err := os.RemoveAll(filepath.Join(f.folders[0], "gen")); err != nil {
			b.Fatal(err)
		}
		c := &Call{Name: "shell", RequestID: fmt.Sprint("r", i), Budget: NewBudget(0, 0), Session: NewSession(), Env: f.env}
		b.StartTimer()
		res, err := c.TakeIn(context.Background(), set, "generate")
		if err != nil || res.IsError {
			b.Fatal(err, res.Content)
		}
		b.StopTimer()
		set.Remove()
		b.StartTimer()
	}
}

// fillUpper writes n new files into a layer's upper directory, as a
// command creating them would leave it.
func fillUpper(tb testing.TB, l overlay.Layer, n int) {
	for i := range n {
		p := filepath.Join(l.Upper, "gen", fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "file %d\n", i), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
