package tools

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// snapshot maps every file under the workspace to its content.
func (h *harness) snapshot() map[string]string {
	h.t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(h.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[strings.TrimPrefix(p, h.dir)] = string(b)
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return files
}

// fileChangeCases is one call of every file-changing tool, each with the
// files and reads it needs to succeed.
var fileChangeCases = []struct {
	tool  string
	setup func(h *harness)
	args  map[string]any
	diff  string // a line the approval's diff must show
}{
	{"write_file", func(h *harness) {}, map[string]any{"path": "new.txt", "content": "fresh\n"}, "+fresh"},
	{"write_file", func(h *harness) { h.write("a.txt", "old\n"); h.readWhole("a.txt") }, map[string]any{"path": "a.txt", "content": "new\n"}, "-old"},
	{"write_file", func(h *harness) { h.write("a.txt", "old\n") }, map[string]any{"path": "a.txt", "content": "more\n", "append": true}, "+more"},
	{"edit_file", func(h *harness) { h.write("a.txt", "old\n"); h.readWhole("a.txt") }, editArgs("a.txt", "old", "new"), "+new"},
	{"multi_edit", func(h *harness) { h.write("a.txt", "a\nb\n"); h.readWhole("a.txt") }, map[string]any{"path": "a.txt", "edits": []map[string]any{{"old_string": "a", "new_string": "A"}, {"old_string": "b", "new_string": "B"}}}, "+B"},
	{"move_file", func(h *harness) { h.write("a.txt", "x\n") }, map[string]any{"from": "a.txt", "to": "b/c.txt"}, "rename to b/c.txt"},
	{"delete_file", func(h *harness) { h.write("a.txt", "gone\n"); h.readWhole("a.txt") }, map[string]any{"path": "a.txt"}, "-gone"},
}

func TestFileChangesAskWithADiff(t *testing.T) {
	for _, tc := range fileChangeCases {
		t.Run(tc.tool, func(t *testing.T) {
			h := newHarness(t)
			tc.setup(h)
			before := h.snapshot()
			h.ok(tc.tool, tc.args)
			if len(h.host.requests) != 1 {
				t.Fatalf("%d approval requests, want 1", len(h.host.requests))
			}
			if req := h.host.requests[0]; req.Tool != tc.tool || !strings.Contains(req.Diff, tc.diff) || req.Title == "" {
				t.Fatalf("request %+v lacks %q", req, tc.diff)
			}
			if maps.Equal(before, h.snapshot()) {
				t.Fatal("approved change not written")
			}
		})
	}
}

func TestFileChangesSkippedOrDeclinedDidNotHappen(t *testing.T) {
	for _, answer := range []protocol.Answer{protocol.AnswerSkip, protocol.AnswerNo} {
		for _, tc := range fileChangeCases {
			t.Run(string(answer)+"/"+tc.tool, func(t *testing.T) {
				h := newHarness(t)
				tc.setup(h)
				before := h.snapshot()
				h.host.answer = answer
				msg := h.fail(tc.tool, tc.args)
				if !strings.Contains(msg, "did not happen") || !strings.Contains(msg, "nothing was changed") {
					t.Fatal(msg)
				}
				if !maps.Equal(before, h.snapshot()) {
					t.Fatal("files changed")
				}
			})
		}
	}
}

func TestFileChangesRefusedInPlanMode(t *testing.T) {
	for _, tc := range fileChangeCases {
		t.Run(tc.tool, func(t *testing.T) {
			h := newHarness(t)
			tc.setup(h)
			before := h.snapshot()
			h.env.Settings.Mode = protocol.ModePlan
			if msg := h.fail(tc.tool, tc.args); !strings.Contains(msg, "plan mode is read-only") {
				t.Fatal(msg)
			}
			if len(h.host.requests) != 0 || !maps.Equal(before, h.snapshot()) {
				t.Fatal("plan mode asked or wrote")
			}
		})
	}
}

func TestFileChangesInAcceptEditsModeDoNotAsk(t *testing.T) {
	for _, tc := range fileChangeCases {
		t.Run(tc.tool, func(t *testing.T) {
			h := newHarness(t)
			tc.setup(h)
			before := h.snapshot()
			h.env.Settings.Mode = protocol.ModeAcceptEdits
			h.ok(tc.tool, tc.args)
			if len(h.host.requests) != 0 {
				t.Fatalf("asked: %+v", h.host.requests)
			}
			if maps.Equal(before, h.snapshot()) {
				t.Fatal("nothing written")
			}
		})
	}
}

func TestFileChangesPrepareOnlyPreviews(t *testing.T) {
	for _, tc := range fileChangeCases {
		t.Run(tc.tool, func(t *testing.T) {
			h := newHarness(t)
			tc.setup(h)
			before := h.snapshot()
			r := h.callTuned(tc.tool, tc.args, func(c *tool.Call) { c.Prepare = true })
			if r.IsError || !r.NeedsApproval || !strings.Contains(r.Diff, tc.diff) || r.Title == "" {
				t.Fatalf("preview %+v", r)
			}
			if len(h.host.requests) != 0 || !maps.Equal(before, h.snapshot()) {
				t.Fatal("a preview asked or wrote")
			}
		})
	}
}

// When the user rewrites a proposed change while approving it, the file
// holds text the agent has not seen: the model is told, and must read the
// file before changing it again.
func TestFileChangeRewrittenByUserNeedsARead(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\ntwo\n")
	h.readWhole("a.txt")
	users := "one\nthe user's own line\n"
	h.host.content = &users
	got := h.ok("edit_file", editArgs("a.txt", "two", "2"))
	if !strings.Contains(got, "The user edited your proposed change") || h.read("a.txt") != users {
		t.Fatalf("result %q, file %q", got, h.read("a.txt"))
	}
	h.host.content = nil
	if msg := h.fail("write_file", writeArgs("a.txt", "overwrite\n")); !strings.Contains(msg, "before you overwrite it") {
		t.Fatal(msg)
	}
	h.readWhole("a.txt")
	h.ok("edit_file", editArgs("a.txt", "own", "edited"))
}
