package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// threeHunks is a file where an edit of lines 1, 20 and 40 gives three hunks.
func threeHunks(h *harness) (orig string, args map[string]any) {
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%3)+strconv.Itoa(i))
	}
	orig = strings.Join(lines, "\n") + "\n"
	h.write("f.txt", orig)
	h.readWhole("f.txt")
	edits := []map[string]any{
		{"old_string": lines[0] + "\n", "new_string": "FIRST\n"},
		{"old_string": lines[19] + "\n", "new_string": "MIDDLE\n"},
		{"old_string": lines[39] + "\n", "new_string": "LAST\n"},
	}
	return orig, map[string]any{"path": "f.txt", "edits": edits}
}

func TestApprovalOffersHunksAndKeepsOnlyTheChosen(t *testing.T) {
	h := newHarness(t)
	_, args := threeHunks(h)
	h.host.hunks = []int{1, 3}
	got := h.ok("multi_edit", args)
	req := h.host.requests[0]
	if len(req.Hunks) != 3 || req.Hunks[1].Lines[0] == "" {
		t.Fatalf("approval offered %d hunks: %+v", len(req.Hunks), req.Hunks)
	}
	text := h.read("f.txt")
	if !strings.HasPrefix(text, "FIRST\n") || !strings.HasSuffix(text, "LAST\n") || strings.Contains(text, "MIDDLE") || !strings.Contains(text, "line xx20\n") {
		t.Fatalf("file after a dropped middle hunk:\n%s", text)
	}
	if !strings.Contains(got, "hunk(s) 1, 3 of 3 were written") || !strings.Contains(got, "hunk(s) 2 were dropped") {
		t.Fatalf("the model was not told what the user kept: %s", got)
	}
	if h.sess.Lookup(filepath.Join(h.dir, "f.txt")) != nil {
		t.Fatal("after a partial approval the agent must read the file again")
	}
}

func TestApprovalDroppingEveryHunkWritesNothing(t *testing.T) {
	h := newHarness(t)
	orig, args := threeHunks(h)
	h.host.hunks = []int{}
	if msg := h.fail("multi_edit", args); !strings.Contains(msg, "dropped every hunk") || !strings.Contains(msg, "did not happen") {
		t.Fatal(msg)
	}
	if h.read("f.txt") != orig {
		t.Fatal("file changed although every hunk was dropped")
	}
	h.host.hunks = []int{7}
	if msg := h.fail("multi_edit", args); !strings.Contains(msg, "has 3") {
		t.Fatal(msg)
	}
}

func TestApprovalWithUserRewrittenContentReportsTheDifference(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\ntwo\n")
	h.readWhole("a.txt")
	mine := "one\nTWO (the user's words)\n"
	h.host.content = &mine
	got := h.ok("edit_file", editArgs("a.txt", "two", "2"))
	if h.read("a.txt") != mine {
		t.Fatalf("file = %q", h.read("a.txt"))
	}
	if !strings.Contains(got, "-2") || !strings.Contains(got, "+TWO (the user's words)") {
		t.Fatalf("the model was not shown how the user's version differs: %s", got)
	}
}

func TestAlwaysIsSavedAndSensitivePathsStillAsk(t *testing.T) {
	h := newHarness(t)
	rules, err := permission.LoadRules(filepath.Join(t.TempDir(), "allow.json"))
	if err != nil {
		t.Fatal(err)
	}
	h.env.Rules = rules
	h.host.answer = protocol.AnswerAlways
	h.ok("write_file", map[string]any{"path": "a.txt", "content": "a\n"})
	if len(rules.List()) != 1 {
		t.Fatalf("always was not saved: %+v", rules.List())
	}
	h.host.answer = protocol.AnswerNo // would refuse, if it were asked
	h.ok("write_file", map[string]any{"path": "b.txt", "content": "b\n"})
	if len(h.host.requests) != 1 {
		t.Fatalf("asked again after always: %d requests", len(h.host.requests))
	}
	if msg := h.fail("write_file", map[string]any{"path": ".vscode/settings.json", "content": "{}\n"}); !strings.Contains(msg, "declined") {
		t.Fatalf("a sensitive path must still ask: %s", msg)
	}
	h.env.Settings.Mode = protocol.ModeAcceptEdits
	if msg := h.fail("write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "x\n"}); !strings.Contains(msg, "declined") {
		t.Fatalf("acceptEdits must still ask for .git internals: %s", msg)
	}
}

func TestNoHostMeansRefusedNotAllowed(t *testing.T) {
	h := newHarness(t)
	h.env.Host = nil
	if msg := h.fail("write_file", map[string]any{"path": "a.txt", "content": "a\n"}); !strings.Contains(msg, "nobody can be asked") {
		t.Fatal(msg)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "a.txt")); err == nil {
		t.Fatal("written without approval")
	}
}

func TestDryRunStagesAndAppliesLater(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeDryRun
	h.env.Staging = staging.Open(t.TempDir())
	h.write("a.txt", "old\r\n")
	h.readWhole("a.txt")
	got := h.ok("edit_file", editArgs("a.txt", "old", "new"))
	if h.read("a.txt") != "old\r\n" || !strings.Contains(got, "staged as") {
		t.Fatalf("dry run wrote the file or did not say so: %q / %s", h.read("a.txt"), got)
	}
	if len(h.host.requests) != 0 {
		t.Fatal("a dry run must not ask")
	}
	list, _ := h.env.Staging.List()
	if len(list) != 1 || !strings.Contains(list[0].Diff, "+new") {
		t.Fatalf("staged: %+v", list)
	}
	c := &tool.Call{Name: "staged/apply", RequestID: "r2", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env}
	if r, _ := c.ApplyStaged(context.Background(), list[0]); r.IsError || h.read("a.txt") != "new\r\n" {
		t.Fatalf("apply: %+v, file %q", r, h.read("a.txt"))
	}
	// Staged against content that has since changed: refused, nothing lost.
	h.readWhole("a.txt")
	h.ok("edit_file", editArgs("a.txt", "new", "newer"))
	list, _ = h.env.Staging.List()
	h.write("a.txt", "the user's own edit\n")
	if r, _ := c.ApplyStaged(context.Background(), list[len(list)-1]); !r.IsError || !strings.Contains(r.Content, "changed on disk") {
		t.Fatalf("stale staged change applied: %+v", r)
	}
	if h.read("a.txt") != "the user's own edit\n" {
		t.Fatal("the user's edit was lost")
	}
}

func TestUnsavedEditorBufferBlocksTheChange(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "old\n")
	h.readWhole("a.txt")
	h.env.Dirty = &diagnostics.Dirty{}
	h.env.Dirty.Set([]string{filepath.Join(h.dir, "a.txt")})
	if msg := h.fail("edit_file", editArgs("a.txt", "old", "new")); !strings.Contains(msg, "unsaved changes in the editor") {
		t.Fatal(msg)
	}
	h.env.Dirty.Set(nil)
	h.ok("edit_file", editArgs("a.txt", "old", "new"))
}

func TestFreshProblemsAfterAChange(t *testing.T) {
	h := newHarness(t)
	st := diagnostics.NewStore()
	h.env.Diagnostics, h.env.Capabilities.Diagnostics = st, true
	h.env.Settings.SettleTime = 5 * time.Second
	path := h.write("a.go", "package a\n")
	h.readWhole("a.go")
	old := lsp.Diagnostic{Severity: 2, Message: "old warning", Range: lsp.Range{Start: lsp.Position{Line: 0}}}
	st.Publish(path, []lsp.Diagnostic{old})

	// The editor publishes after the write: the new problem is reported,
	// the one that was already there is not.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "broken") {
				st.Publish(path, []lsp.Diagnostic{old, {Severity: 1, Message: "undefined: broken", Range: lsp.Range{Start: lsp.Position{Line: 1, Character: 4}}}})
				return
			}
		}
	}()
	got := h.ok("edit_file", editArgs("a.go", "package a\n", "package a\nvar x = broken\n"))
	close(stop)
	if !strings.Contains(got, "a.go:2:5: error: undefined: broken") || strings.Contains(got, "old warning") {
		t.Fatalf("fresh problems: %s", got)
	}

	// No publish after the write: nothing stale is reported as fresh.
	h.env.Settings.SettleTime = 30 * time.Millisecond
	got = h.ok("edit_file", editArgs("a.go", "broken", "fixed"))
	if strings.Contains(got, "undefined: broken") || !strings.Contains(got, "no fresh diagnostics") {
		t.Fatalf("stale publish reported as fresh: %s", got)
	}
}

// A language server often re-sends a file's diagnostics unchanged (its
// syntax pass) before its type check reports: that must not end the wait
// with "no new problems" while the error is still on its way.
func TestUnchangedRepublishDoesNotEndTheWait(t *testing.T) {
	h := newHarness(t)
	st := diagnostics.NewStore()
	h.env.Diagnostics, h.env.Capabilities.Diagnostics = st, true
	h.env.Settings.SettleTime = 5 * time.Second
	path := h.write("calc.ts", "let sum = 0;\n")
	h.readWhole("calc.ts")
	hint := lsp.Diagnostic{Severity: 4, Message: "'unused' is declared but its value is never read.", Range: lsp.Range{Start: lsp.Position{Line: 0}}}
	st.Publish(path, []lsp.Diagnostic{hint})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "zero") {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		st.Publish(path, []lsp.Diagnostic{hint}) // the syntax pass: nothing new
		time.Sleep(50 * time.Millisecond)
		st.Publish(path, []lsp.Diagnostic{hint, {Severity: 1, Message: "Type 'string' is not assignable to type 'number'.", Range: lsp.Range{Start: lsp.Position{Line: 0, Character: 4}}}})
	}()
	got := h.ok("edit_file", editArgs("calc.ts", "let sum = 0;", "let sum: number = \"zero\";"))
	<-done
	if !strings.Contains(got, "calc.ts:1:5: error: Type 'string' is not assignable to type 'number'.") {
		t.Fatalf("the type error that followed an unchanged republish was not reported: %s", got)
	}

	// Only unchanged republishes until the wait ends: the file is reported
	// as checked with no new problems, not as silent.
	h.env.Settings.SettleTime = 100 * time.Millisecond
	h.readWhole("calc.ts")
	go func() {
		for {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "one") {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		d, _ := st.File(path)
		st.Publish(path, d)
	}()
	got = h.ok("edit_file", editArgs("calc.ts", "zero", "one"))
	if !strings.Contains(got, "no new problems") || strings.Contains(got, "no fresh diagnostics") {
		t.Fatalf("an unchanged republish, then nothing: %s", got)
	}
}

// Once the editor has been seen to report on a kind of file, a change to
// such a file waits twice the slowest report seen (at least a second),
// not the whole settle time: a clean edit of a clean file gets no publish
// at all, and would otherwise wait it out every time.
func TestTheWaitLearnsTheLanguageServersPace(t *testing.T) {
	h := newHarness(t)
	st := diagnostics.NewStore()
	h.env.Diagnostics, h.env.Capabilities.Diagnostics = st, true
	h.env.Settings.SettleTime = time.Hour // an unbounded wait would hang the test
	path := h.write("calc.ts", "let sum = 0;\n")
	h.readWhole("calc.ts")
	st.Publish(path, nil)
	go func() {
		for {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "zero") {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		st.Publish(path, []lsp.Diagnostic{{Severity: 1, Message: "Type 'string' is not assignable to type 'number'."}})
	}()
	if got := h.ok("edit_file", editArgs("calc.ts", "let sum = 0;", "let sum: number = \"zero\";")); !strings.Contains(got, "not assignable") {
		t.Fatalf("the type error was not reported: %s", got)
	}
	if slowest, ok := st.SlowestLatency(path); !ok || slowest <= 0 {
		t.Fatalf("no latency noted for .ts: %v %v", slowest, ok)
	}

	// The fix: no publish comes. The wait ends after a second, the floor.
	got := h.ok("edit_file", editArgs("calc.ts", "\"zero\"", "0"))
	if !strings.Contains(got, "no fresh diagnostics for calc.ts within 1s") {
		t.Fatalf("the wait did not end at the learned bound: %s", got)
	}
}

// A kind of file nothing in the editor checks gets no wait and no note.
func TestNoWaitForFilesNothingChecks(t *testing.T) {
	h := newHarness(t)
	st := diagnostics.NewStore()
	h.env.Diagnostics, h.env.Capabilities.Diagnostics = st, true
	h.env.Settings.SettleTime = time.Hour // a wait would hang the test
	st.Publish(filepath.Join(h.dir, "other.go"), nil)
	h.write("notes.txt", "a\n")
	h.readWhole("notes.txt")
	got := h.ok("edit_file", editArgs("notes.txt", "a", "b"))
	if strings.Contains(got, "diagnostics") || strings.Contains(got, "problems") {
		t.Fatalf("a .txt edit waited for diagnostics: %s", got)
	}
}

// A file the editor does not have open, and that never had diagnostics,
// is not checked by most language servers: a change to it does not wait.
// Once the editor says it is open, the same change waits and reports.
func TestNoWaitForFilesNotOpenInTheEditor(t *testing.T) {
	h := newHarness(t)
	st := diagnostics.NewStore()
	h.env.Diagnostics, h.env.Capabilities.Diagnostics = st, true
	h.env.Dirty = &diagnostics.Dirty{}
	h.env.Dirty.SetOpen([]string{filepath.Join(h.dir, "open.ts")})
	st.Publish(filepath.Join(h.dir, "other.ts"), []lsp.Diagnostic{{Message: "elsewhere"}})
	h.env.Settings.SettleTime = time.Hour // a wait would hang the test
	h.write("closed.ts", "let a = 1;\n")
	h.readWhole("closed.ts")
	if got := h.ok("edit_file", editArgs("closed.ts", "1", "2")); strings.Contains(got, "diagnostics") || strings.Contains(got, "problems") {
		t.Fatalf("an edit of a file that is not open waited for diagnostics: %s", got)
	}

	h.env.Settings.SettleTime = 50 * time.Millisecond
	h.env.Dirty.SetOpen([]string{filepath.Join(h.dir, "open.ts"), filepath.Join(h.dir, "closed.ts")})
	if got := h.ok("edit_file", editArgs("closed.ts", "2", "3")); !strings.Contains(got, "no fresh diagnostics for closed.ts") {
		t.Fatalf("an edit of an open file did not wait for its diagnostics: %s", got)
	}

	// A file with diagnostics before is waited for, open or not.
	h.env.Dirty.SetOpen(nil)
	st.Publish(filepath.Join(h.dir, "closed.ts"), nil)
	if got := h.ok("edit_file", editArgs("closed.ts", "3", "4")); !strings.Contains(got, "no fresh diagnostics for closed.ts") {
		t.Fatalf("an edit of a file with diagnostics before did not wait: %s", got)
	}

	// A kind whose closed files have had diagnostics (gopls checks them
	// all) is waited for even in a closed file that never had any.
	h.write("new.ts", "let b = 1;\n")
	h.readWhole("new.ts")
	st.NoteClosedPublish(filepath.Join(h.dir, "other.ts"))
	if got := h.ok("edit_file", editArgs("new.ts", "1", "2")); !strings.Contains(got, "no fresh diagnostics for new.ts") {
		t.Fatalf("an edit of a closed file of a kind checked while closed did not wait: %s", got)
	}
}

// In acceptEdits, files that run code on checkout, commit, entering the
// folder or in CI still ask; ordinary files do not.
func TestAcceptEditsStillAsksForFilesThatRunCode(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeAcceptEdits
	h.host.answer = protocol.AnswerNo
	for _, p := range []string{".envrc", ".github/workflows/ci.yml", ".gitmodules", ".gitattributes", ".husky/pre-commit", ".GitLab-CI.yml", "sub/.npmrc"} {
		if msg := h.fail("write_file", map[string]any{"path": p, "content": "x\n"}); !strings.Contains(msg, "declined") {
			t.Errorf("%s was written without asking: %s", p, msg)
		}
	}
	h.ok("write_file", map[string]any{"path": "src/main.go", "content": "package main\n"})
}

// A call the user skipped or declined did not happen: sending it again is
// asking the user again, not a loop, so it does not count toward the
// repeat guard. A call that ran (or was refused by the rules) does.
func TestDeclinedCallsDoNotCountAsRepeats(t *testing.T) {
	for _, answer := range []protocol.Answer{protocol.AnswerSkip, protocol.AnswerNo} {
		h := newHarness(t)
		h.host.answer = answer
		args := map[string]any{"path": "new.txt", "content": "x\n"}
		for i := range 4 {
			if msg := h.fail("write_file", args); !strings.Contains(msg, "did not happen") {
				t.Fatalf("%s, call %d: %s", answer, i+1, msg)
			}
		}
		if len(h.host.requests) != 4 {
			t.Fatalf("%s: asked %d times, want 4", answer, len(h.host.requests))
		}
		h.host.answer = protocol.AnswerYes
		h.ok("write_file", args)
	}
	// Calls that ran still count.
	h := newHarness(t)
	h.write("a.txt", "a\n")
	h.ok("read_file", map[string]any{"path": "a.txt"})
	h.ok("read_file", map[string]any{"path": "a.txt"})
	if msg := h.fail("read_file", map[string]any{"path": "a.txt"}); !strings.Contains(msg, "3 times in a row") {
		t.Fatal(msg)
	}
}
