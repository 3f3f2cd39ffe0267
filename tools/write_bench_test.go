package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/undo"
)

// BenchmarkOverwrite1MiB is write_file replacing an existing 1 MiB file
// through the registry, two payloads that differ in one line alternated,
// every call under one request with an undo store (the checkpoint is
// made by the first): the file loaded and compared, the change written
// with fsync and renamed into place, what was written recorded for undo,
// and the result with its diff.
func BenchmarkOverwrite1MiB(b *testing.B) {
	payloads := tooltest.OverwritePayloads()
	e := newBenchEnv(b, payloads[1])
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	u, err := undo.Open(e.env.Workspace.Primary(), undo.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { u.Close() })
	e.env.Checkpoints = u
	invoke := func(name string, args map[string]any) tool.Result {
		raw, _ := json.Marshal(args)
		return e.reg.Invoke(context.Background(), &tool.Call{Name: name, Args: raw, RequestID: "bench", Budget: tool.NewBudget(0, 1<<20), Session: e.sess, Env: e.env})
	}
	if r := invoke("read_file", map[string]any{"path": "big.go"}); r.IsError {
		b.Fatal(r.Content)
	}
	b.SetBytes(1 << 20)
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		b.StartTimer()
		r := invoke("write_file", map[string]any{"path": "big.go", "content": payloads[i%2]})
		b.StopTimer()
		if !strings.Contains(r.Content, "Wrote big.go") {
			b.Fatal(r.Content)
		}
	}
}
