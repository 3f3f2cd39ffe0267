package shell

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// needProc skips tests that look processes up in /proc.
func needProc(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
}

// pids reads the process ids a command printed, one a line.
func pids(t *testing.T, out string) []int {
	t.Helper()
	var ps []int
	for _, f := range strings.Fields(out) {
		if n, err := strconv.Atoi(f); err == nil {
			ps = append(ps, n)
		}
	}
	if len(ps) == 0 {
		t.Fatalf("the command printed no pid; output: %q", out)
	}
	return ps
}

// run runs a command with a short grace period and returns its outcome
// and output.
func run(t *testing.T, ctx context.Context, spec Spec) (Outcome, string) {
	t.Helper()
	if spec.Dir == "" {
		spec.Dir = t.TempDir()
	}
	if spec.Grace == 0 {
		spec.Grace = 200 * time.Millisecond
	}
	var out syncBuffer
	o, err := Run(ctx, spec, &out)
	if err != nil {
		t.Fatalf("Run(%q): %v", spec.Command, err)
	}
	return o, out.String()
}

// syncBuffer is a bytes.Buffer safe for the copier goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFile polls until path holds text (a command writing its pid).
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 && bytes.HasSuffix(b, []byte("\n")) {
			return string(b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s was never written", path)
	return ""
}
