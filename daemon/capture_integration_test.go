//go:build linux

package daemon_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/overlay/overlaytest"
	"github.com/tether-dev/tether/protocol"
)

// What a sandboxed command wrote, through `tether serve` as the editor
// drives it: reviewed after the command, not asked before; applied,
// declined, undone; and a set cut short by a killed daemon reported by the
// next one.

func TestBinaryCommandIsReviewedAfterAndUndone(t *testing.T) {
	needFull(t)
	p := startProc(t)
	p.write("a.txt", "alpha\n")
	p.write("b.txt", "beta\n")
	p.initialize(nil)

	p.queueAnswers(protocol.AnswerYes)
	r := p.tool("shell", map[string]any{"command": "sed -i 's/a$/A/' a.txt b.txt"})
	if r.IsError {
		t.Fatalf("result: %+v", r)
	}
	asked := p.approvalsAsked()
	if len(asked) != 1 || asked[0].Kind != protocol.ApprovalEdit || len(asked[0].Files) != 2 {
		t.Fatalf("want one review of both files and no question before, got %+v", asked)
	}
	if p.read("a.txt") != "alphA\n" || p.read("b.txt") != "betA\n" {
		t.Fatalf("not applied: %q %q", p.read("a.txt"), p.read("b.txt"))
	}
	var undone protocol.UndoResult
	if _, err := p.Call(waitCtx(t), protocol.MethodUndoUndo, protocol.UndoParams{}, &undone); err != nil {
		t.Fatal(err)
	}
	if p.read("a.txt") != "alpha\n" || p.read("b.txt") != "beta\n" {
		t.Errorf("after undo: %q %q", p.read("a.txt"), p.read("b.txt"))
	}

	// "No": nothing of it reaches the workspace.
	p.queueAnswers(protocol.AnswerNo)
	r = p.toolIn("req-2", "shell", map[string]any{"command": "sed -i 's/a$/A/' a.txt b.txt && echo new > c.txt"})
	if !r.IsError || len(p.approvalsAsked()) != 2 {
		t.Errorf("declined: %+v, asked %d", r, len(p.approvalsAsked()))
	}
	if _, err := os.Stat(filepath.Join(p.dir, "c.txt")); err == nil || p.read("a.txt") != "alpha\n" {
		t.Error("a declined command's changes reached the workspace")
	}
	p.finish()
}

// tempName is a temporary file of an atomic write.
var tempName = regexp.MustCompile(`\.tether-[0-9]+-`)

// A daemon killed while it applies a command's change set leaves every
// file old or new; the next daemon reports the set as interrupted (its log
// and undo/list), and undo puts back what was there.
func TestBinaryKilledWhileApplyingIsReportedAndUndone(t *testing.T) {
	needFull(t)
	for attempt := 1; ; attempt++ {
		if killWhileApplying(t) {
			t.Logf("the kill landed while the set was applied, at attempt %d", attempt)
			return
		}
		if attempt == 3 {
			t.Fatal("three kills all landed after the set was applied")
		}
	}
}

// killWhileApplying runs one attempt; false when the kill landed after the
// set was applied to the end (nothing to report then).
func killWhileApplying(t *testing.T) bool {
	ws, home, plain := t.TempDir(), t.TempDir(), t.TempDir()
	for _, dir := range []string{ws, plain} {
		for i := range 50 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("old%d.txt", i)), []byte(strings.Repeat("old\n", 100)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := overlaytest.Tree(t, ws)
	// Folders are placed before files: the first one seen in the workspace
	// says the set is being applied.
	script := "mkdir -p gen && cd gen && for d in $(seq 1 40); do mkdir d$d; for f in $(seq 1 100); do echo $d.$f > d$d/f$f; done; done; cd .. && for i in $(seq 0 49); do echo changed >> old$i.txt; done"
	run := exec.Command("/bin/sh", "-c", script)
	run.Dir = plain
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("the script on a plain copy: %v %s", err, out)
	}
	after := overlaytest.Tree(t, plain)
	p := startDaemonProc(t, ws, home, "", false)
	p.initialize(&protocol.Settings{PermissionMode: protocol.ModeBypass})
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan struct{})
	go func() {
		defer close(called)
		p.Call(ctx, protocol.MethodToolsCall, map[string]any{"name": "shell", "arguments": map[string]any{"command": script, "timeout": 300}, "requestId": "r"}, nil)
	}()
	defer func() { cancel(); <-called }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Lstat(filepath.Join(ws, "gen")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the set was never applied; stderr:\n%s", p.Stderr())
		}
		time.Sleep(time.Millisecond)
	}
	p.KillDaemon()
	p.Wait(waitCtx(t))

	// Every path old or new.
	for path, got := range overlaytest.Tree(t, ws) {
		if !tempName.MatchString(filepath.Base(path)) && got != before[path] && got != after[path] {
			t.Errorf("%s is neither old nor new: %s (old %q, new %q)", path, got, before[path], after[path])
		}
	}

	next := startDaemonProc(t, ws, home, "", true, "TETHER_LOG_LEVEL=debug")
	next.initialize(nil)
	var list protocol.UndoListResult
	if _, err := next.Call(waitCtx(t), protocol.MethodUndoList, struct{}{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Checkpoints) != 1 {
		t.Fatalf("checkpoints after the kill: %+v", list.Checkpoints)
	}
	interrupted := list.Checkpoints[0].Interrupted != ""
	if interrupted != strings.Contains(next.Stderr(), "were being applied when Tether stopped") {
		t.Errorf("undo/list says interrupted %v, but the log disagrees:\n%s", interrupted, next.Stderr())
	}
	var undone protocol.UndoResult
	if _, err := next.Call(waitCtx(t), protocol.MethodUndoUndo, protocol.UndoParams{}, &undone); err != nil {
		t.Fatal(err)
	}
	for _, d := range overlaytest.DiffTrees(before, overlaytest.Tree(t, ws)) {
		t.Errorf("after undo: %s", d)
	}
	next.finish()
	return interrupted
}
