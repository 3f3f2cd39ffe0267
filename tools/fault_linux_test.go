package tools

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
)

// procMem is a file whose read fails with EIO from the kernel itself: a
// process's memory at offset 0, which is never mapped. It stands for a
// disk that fails under a tool, with no file system of the test's making.
const procMem = "/proc/self/mem"

// A read that fails with EIO is Tether's failure, not the model's
// mistake: the model is told so, with the operation, path and error, and
// the log gets a line at error level. A refusal beside it is logged at no
// error level.
func TestReadFileEIOIsTethersFaultNotARefusal(t *testing.T) {
	h := newHarness(t)
	var log bytes.Buffer
	h.env.Log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.env.Settings.Mode = protocol.ModeBypass // a read outside the workspace asks nobody

	got := h.fail("read_file", map[string]any{"path": procMem})
	real := fmt.Sprintf("/proc/%d/mem", os.Getpid()) // what /proc/self leads to
	for _, want := range []string{"Tether failed", "not in your call", "read " + real + ": input/output error", "Tell the user"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model is told %q, which lacks %q", got, want)
		}
	}
	for _, want := range []string{"level=ERROR", `msg="tool fault"`, "tool=read_file", "op=read", "path=" + real, `err="read ` + real + `: input/output error"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, log.String())
		}
	}

	log.Reset()
	refusal := h.fail("read_file", map[string]any{"path": "missing.go"})
	if strings.Contains(refusal, "Tether failed") || !strings.Contains(refusal, "does not exist") {
		t.Errorf("a missing file is told as %q, want the refusal that it does not exist", refusal)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("a refusal was logged as an error:\n%s", log.String())
	}
}
