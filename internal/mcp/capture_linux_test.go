//go:build linux

package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/sandbox"
)

// tether mcp: a sandboxed command that edits two files is not asked
// before it runs; its changes are put to the user once, after, as one
// elicitation carrying both diffs, and "yes" applies both.
func TestShellChangesAreAskedOnceAfterTheCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	st := sandbox.Probe(ctx, "")
	cancel()
	if st.Level != sandbox.LevelFull {
		t.Skipf("no full sandbox here: %s", st.Why)
	}
	f := newFixture(t)
	f.write(t, "a.txt", "alpha\n")
	f.write(t, "b.txt", "beta\n")
	el := &elicitor{action: "accept", content: map[string]any{"answer": "yes"}}
	s := f.connect(t, newClient(&sdk.ClientOptions{ElicitationHandler: el.handle}), v1125)
	out := mustOK(t, "shell", s.call(t, "shell", map[string]any{"command": "sed -i 's/a$/A/' a.txt b.txt && echo edited"}))
	prompts := el.prompts()
	if len(prompts) != 1 || !strings.Contains(prompts[0], "+alphA") || !strings.Contains(prompts[0], "+betA") {
		t.Fatalf("want one question with both diffs, got %d: %q", len(prompts), prompts)
	}
	for name, want := range map[string]string{"a.txt": "alphA\n", "b.txt": "betA\n"} {
		if got, _ := os.ReadFile(filepath.Join(f.ws, name)); string(got) != want {
			t.Errorf("%s = %q after yes; result:\n%s", name, got, out)
		}
	}
	if !strings.Contains(out, "edited") || !strings.Contains(out, "a.txt") {
		t.Errorf("result:\n%s", out)
	}
}
