package daemon_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
)

// A fault below a tool, through tether serve: reading the daemon's own
// memory at offset 0 fails with EIO from the kernel. The model is told
// that Tether failed, with the operation, path and error, and the
// daemon's log on stderr has the fault at error level.
func TestAToolFaultReachesTheLogAndTheModelAsTethersFailure(t *testing.T) {
	p := startProc(t)
	p.initialize(&protocol.Settings{PermissionMode: protocol.ModeBypass})
	res := p.tool("read_file", map[string]any{"path": "/proc/self/mem"})
	mem := fmt.Sprintf("/proc/%d/mem", p.Pid()) // the daemon's own
	if !res.IsError || !strings.HasPrefix(res.Content, "Tether failed") || !strings.Contains(res.Content, "read "+mem+": input/output error") {
		t.Errorf("the model is told %+v, want Tether's failure naming read %s and the error", res, mem)
	}
	missing := p.tool("read_file", map[string]any{"path": "missing.go"})
	if !missing.IsError || strings.Contains(missing.Content, "Tether failed") {
		t.Errorf("a missing file is told as %+v, want a refusal", missing)
	}
	p.finish()
	var faults []string
	for _, line := range strings.Split(p.Stderr(), "\n") {
		if strings.Contains(line, "level=ERROR") {
			faults = append(faults, line)
		}
	}
	if len(faults) != 1 {
		t.Fatalf("want one error line, for the fault; stderr:\n%s", p.Stderr())
	}
	for _, want := range []string{`msg="tool fault"`, "tool=read_file", "op=read", "path=" + mem, "input/output error"} {
		if !strings.Contains(faults[0], want) {
			t.Errorf("the error line lacks %s: %s", want, faults[0])
		}
	}
}
