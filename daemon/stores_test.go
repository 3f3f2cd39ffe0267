package daemon_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	lsp "go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// An edit over the wire leaves a checkpoint; undo/undo puts the file back
// and undo/show still shows it.
func TestUndoRoundTrip(t *testing.T) {
	f := start(t)
	f.initialize()
	f.write("a.txt", "before\n")
	read := func(req string) {
		f.toolIn(req, "read_file", map[string]any{"path": "a.txt"})
	}
	read("r1")
	res := f.toolIn("r1", "edit_file", map[string]any{"path": "a.txt", "old_string": "before", "new_string": "after"})
	if res.IsError || res.Checkpoint == "" {
		t.Fatalf("edit: %+v", res)
	}
	var list protocol.UndoListResult
	f.call(protocol.MethodUndoList, struct{}{}, &list)
	if len(list.Checkpoints) != 1 || list.Checkpoints[0].ID != res.Checkpoint || list.Checkpoints[0].RequestID != "r1" {
		t.Fatalf("undo/list: %+v", list)
	}
	var show protocol.UndoShowResult
	f.call(protocol.MethodUndoShow, protocol.UndoShowParams{ID: res.Checkpoint}, &show)
	if !strings.Contains(show.Diff, "before") {
		t.Fatalf("undo/show: %q", show.Diff)
	}
	var undone protocol.UndoResult
	f.call(protocol.MethodUndoUndo, protocol.UndoParams{}, &undone)
	if undone.ID != res.Checkpoint || len(undone.Restored) != 1 || len(undone.Conflicts) != 0 {
		t.Fatalf("undo/undo: %+v", undone)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "before\n" {
		t.Fatalf("after undo: %q", b)
	}
	if e := f.callErr(protocol.MethodUndoUndo, protocol.UndoParams{ID: res.Checkpoint}); e.Code != jsonrpc2.InvalidParams {
		t.Fatalf("undoing twice: %+v", e)
	}
	if e := f.callErr(protocol.MethodUndoShow, struct{}{}); e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, "undo/list") {
		t.Fatalf("show without id: %+v", e)
	}
}

// A file someone changed after Tether wrote it is reported, not overwritten.
func TestUndoLeavesOthersChangesAlone(t *testing.T) {
	f := start(t)
	f.initialize()
	f.write("a.txt", "v1\n")
	f.toolIn("r1", "read_file", map[string]any{"path": "a.txt"})
	f.toolIn("r1", "edit_file", map[string]any{"path": "a.txt", "old_string": "v1", "new_string": "v2"})
	f.write("a.txt", "the user's v3\n")
	var undone protocol.UndoResult
	f.call(protocol.MethodUndoUndo, protocol.UndoParams{}, &undone)
	if len(undone.Conflicts) != 1 || len(undone.Restored) != 0 {
		t.Fatalf("undo/undo: %+v", undone)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "the user's v3\n" {
		t.Fatalf("the user's change was lost: %q", b)
	}
}

func TestPermissionsListAndReset(t *testing.T) {
	f := start(t)
	f.answer.Store(protocol.AnswerAlways)
	f.initialize()
	f.tool("write_file", map[string]any{"path": "n.txt", "content": "x\n"})
	var list protocol.PermissionsListResult
	f.call(protocol.MethodPermissionsList, struct{}{}, &list)
	if len(list.Rules) != 1 || list.Rules[0].Kind != protocol.ApprovalEdit || list.Path == "" {
		t.Fatalf("permissions/list: %+v", list)
	}
	var reset protocol.PermissionsResetResult
	f.call(protocol.MethodPermissionsReset, struct{}{}, &reset)
	f.call(protocol.MethodPermissionsList, struct{}{}, &list)
	if reset.Removed != 1 || len(list.Rules) != 0 {
		t.Fatalf("after reset: %+v %+v", reset, list)
	}
}

func TestStagedInDryRun(t *testing.T) {
	f := start(t)
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true}, &protocol.Settings{PermissionMode: protocol.ModeDryRun}), nil)
	f.tool("write_file", map[string]any{"path": "a.txt", "content": "one\n"})
	f.tool("write_file", map[string]any{"path": "b.txt", "content": "two\n"})
	if _, err := os.Stat(filepath.Join(f.dir, "a.txt")); err == nil {
		t.Fatal("dry run wrote a file")
	}
	var list protocol.StagedListResult
	f.call(protocol.MethodStagedList, struct{}{}, &list)
	if len(list.Staged) != 2 || list.Staged[0].Files[0] != "a.txt" {
		t.Fatalf("staged/list: %+v", list)
	}
	var dropped protocol.StagedDropResult
	f.call(protocol.MethodStagedDrop, protocol.StagedParams{IDs: []string{list.Staged[1].ID}}, &dropped)
	var applied protocol.StagedApplyResult
	f.call(protocol.MethodStagedApply, protocol.StagedParams{}, &applied)
	if len(applied.Applied) != 1 || len(applied.Failed) != 0 || applied.Checkpoint == "" {
		t.Fatalf("staged/apply: %+v", applied)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "one\n" {
		t.Fatalf("applied: %q", b)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "b.txt")); err == nil {
		t.Fatal("a dropped change was applied")
	}
	if e := f.callErr(protocol.MethodStagedDrop, protocol.StagedParams{IDs: []string{"nope"}}); e.Code != jsonrpc2.InvalidParams {
		t.Fatalf("dropping an unknown id: %+v", e)
	}
}

// diagnostics/publish feeds problems, and an edit reports only the
// problems it introduced, from a publish that came after it.
func TestDiagnosticsFlow(t *testing.T) {
	f := start(t)
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true, Diagnostics: true}, &protocol.Settings{DiagnosticsSettleMs: 5000}), nil)
	f.write("a.go", "package a\n")
	path := filepath.Join(f.dir, "a.go")
	publish := func(msgs ...string) {
		var ds []lsp.Diagnostic
		for i, m := range msgs {
			ds = append(ds, lsp.Diagnostic{Severity: lsp.DiagnosticSeverityError, Message: m, Range: lsp.Range{Start: lsp.Position{Line: uint32(i)}}})
		}
		if err := f.client.Notify(waitCtx(t), protocol.MethodDiagnosticsPublish, protocol.DiagnosticsPublishParams{URI: uri.File(path), Diagnostics: ds}); err != nil {
			t.Fatal(err)
		}
	}
	publish("old problem")
	// Outside the workspace: ignored.
	if err := f.client.Notify(waitCtx(t), protocol.MethodDiagnosticsPublish, protocol.DiagnosticsPublishParams{URI: uri.File(filepath.Join(t.TempDir(), "x.go")), Diagnostics: []lsp.Diagnostic{{Message: "elsewhere"}}}); err != nil {
		t.Fatal(err)
	}
	res := f.tool("problems", map[string]any{})
	if !strings.Contains(res.Content, "a.go:1:1: error: old problem") || strings.Contains(res.Content, "elsewhere") {
		t.Fatalf("problems: %s", res.Content)
	}
	f.tool("read_file", map[string]any{"path": "a.go"})
	go func() {
		deadline := time.Now().Add(wait)
		for time.Now().Before(deadline) {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "oops") {
				publish("old problem", "new problem")
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	res = f.tool("edit_file", map[string]any{"path": "a.go", "old_string": "package a\n", "new_string": "package a\nvar oops\n"})
	if !strings.Contains(res.Content, "new problem") || strings.Contains(res.Content, "old problem") {
		t.Fatalf("fresh problems: %s", res.Content)
	}
}

func TestDirtyBufferBlocksEdit(t *testing.T) {
	f := start(t)
	f.initialize()
	f.write("a.txt", "x\n")
	f.tool("read_file", map[string]any{"path": "a.txt"})
	if err := f.client.Notify(waitCtx(t), protocol.MethodWorkspaceDirty, protocol.WorkspaceDirtyParams{URIs: []lsp.DocumentURI{uri.File(filepath.Join(f.dir, "a.txt"))}}); err != nil {
		t.Fatal(err)
	}
	res := f.tool("edit_file", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"})
	if !res.IsError || !strings.Contains(res.Content, "unsaved changes") {
		t.Fatalf("edit of a dirty file: %+v", res)
	}
}

// workspace/dirty's open list says which files the editor's language
// servers check: an edit of a file outside it, with no diagnostics of its
// own, returns without waiting for the settle time.
func TestOpenFilesListedInWorkspaceDirty(t *testing.T) {
	f := start(t)
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Diagnostics: true}, &protocol.Settings{DiagnosticsSettleMs: 100, PermissionMode: protocol.ModeBypass}), nil)
	f.write("a.go", "package a\n")
	f.write("b.go", "package a\n")
	if err := f.client.Notify(waitCtx(t), protocol.MethodDiagnosticsPublish, protocol.DiagnosticsPublishParams{URI: uri.File(filepath.Join(f.dir, "c.go")), Diagnostics: []lsp.Diagnostic{{Message: "c"}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.client.Notify(waitCtx(t), protocol.MethodWorkspaceDirty, protocol.WorkspaceDirtyParams{URIs: []lsp.DocumentURI{}, Open: []lsp.DocumentURI{uri.File(filepath.Join(f.dir, "a.go"))}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.go", "b.go"} {
		f.tool("read_file", map[string]any{"path": name})
		res := f.tool("edit_file", map[string]any{"path": name, "old_string": "package a\n", "new_string": "package a\n\nvar x int\n"})
		waited := strings.Contains(res.Content, "no fresh diagnostics for "+name)
		if open := name == "a.go"; waited != open {
			t.Errorf("%s (open: %v) waited for diagnostics: %v; result: %s", name, open, waited, res.Content)
		}
	}

	// Diagnostics of d.go arrive while it is not open: its language
	// server checks closed files, so a change to closed b.go waits now.
	if err := f.client.Notify(waitCtx(t), protocol.MethodDiagnosticsPublish, protocol.DiagnosticsPublishParams{URI: uri.File(filepath.Join(f.dir, "d.go")), Diagnostics: []lsp.Diagnostic{{Message: "d"}}}); err != nil {
		t.Fatal(err)
	}
	f.tool("read_file", map[string]any{"path": "b.go"})
	res := f.tool("edit_file", map[string]any{"path": "b.go", "old_string": "var x int", "new_string": "var y int"})
	if !strings.Contains(res.Content, "no fresh diagnostics for b.go") {
		t.Errorf("closed b.go was not waited for after a closed file of its kind got diagnostics: %s", res.Content)
	}
}

// Through tether serve: "always" on a read outside the workspace saves that
// folder; the next file there is read unasked, a sibling whose name starts
// the same is asked about; permissions/list shows the folder and
// permissions/reset forgets it.
func TestOutsideAlwaysThroughServe(t *testing.T) {
	f := start(t, fixtureOptions{registry: tool.NewRegistry(tools.ReadFile, tools.ListDir)})
	f.initialize()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(root, "lib")
	for _, p := range []string{filepath.Join(lib, "a.h"), filepath.Join(lib, "b.h"), filepath.Join(root, "lib-evil", "c.h")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.answer.Store(protocol.AnswerAlways)
	if r := f.tool("read_file", map[string]any{"path": filepath.Join(lib, "a.h")}); r.IsError {
		t.Fatal(r.Content)
	}
	if req := <-f.approvals; req.Kind != protocol.ApprovalOutside || !strings.Contains(req.AlwaysScope, lib) {
		t.Fatalf("approval: %+v", req)
	}
	f.answer.Store(protocol.AnswerNo)
	if r := f.tool("read_file", map[string]any{"path": filepath.Join(lib, "b.h")}); r.IsError {
		t.Fatalf("the saved folder: %s", r.Content)
	}
	if r := f.tool("list_dir", map[string]any{"path": lib}); r.IsError {
		t.Fatalf("listing the saved folder: %s", r.Content)
	}
	f.noApproval()
	if r := f.tool("read_file", map[string]any{"path": filepath.Join(root, "lib-evil", "c.h")}); !r.IsError {
		t.Fatalf("lib-evil was read: %s", r.Content)
	}
	<-f.approvals

	var list protocol.PermissionsListResult
	f.call(protocol.MethodPermissionsList, struct{}{}, &list)
	if len(list.Rules) != 1 || list.Rules[0].Kind != protocol.ApprovalOutside || list.Rules[0].Dir != lib || !strings.Contains(list.Rules[0].Description, lib) {
		t.Fatalf("permissions/list: %+v", list)
	}
	var reset protocol.PermissionsResetResult
	f.call(protocol.MethodPermissionsReset, struct{}{}, &reset)
	if r := f.tool("read_file", map[string]any{"path": filepath.Join(lib, "b.h")}); !r.IsError {
		t.Fatalf("after reset the folder was read unasked: %s", r.Content)
	}
	<-f.approvals
}

// Through tether serve: a file the user changed and saved in the editor
// since the agent read it is refused, and the refusal shows what changed
// and says the user saved it (workspace/saved); the edit then goes through
// without another read. A file only touched is not refused at all.
func TestStaleRefusalThroughServe(t *testing.T) {
	f := start(t, fixtureOptions{registry: tool.NewRegistry(tools.ReadFile, tools.EditFile)})
	f.initialize()
	f.write("a.go", "package a\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n")
	if r := f.tool("read_file", map[string]any{"path": "a.go"}); r.IsError {
		t.Fatal(r.Content)
	}
	// Touched: same bytes, a later time.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(f.dir, "a.go"), later, later); err != nil {
		t.Fatal(err)
	}
	if r := f.tool("edit_file", map[string]any{"path": "a.go", "old_string": "return 1", "new_string": "return 10"}); r.IsError {
		t.Fatalf("a touched file was refused: %s", r.Content)
	}
	<-f.approvals
	// Changed by the user, who saved it in the editor.
	f.write("a.go", "package a\n\nfunc A() int { return 10 }\n\nfunc B() int { return 20 }\n")
	if err := f.client.Notify(waitCtx(t), protocol.MethodWorkspaceSaved, protocol.WorkspaceSavedParams{URIs: []lsp.DocumentURI{uri.File(filepath.Join(f.dir, "a.go"))}}); err != nil {
		t.Fatal(err)
	}
	// Notifications are handled in the order they come, before the call.
	r := f.tool("edit_file", map[string]any{"path": "a.go", "old_string": "return 10", "new_string": "return 100"})
	if !r.IsError || !strings.Contains(r.Content, "the user saved it in the editor") || !strings.Contains(r.Content, "+5\tfunc B() int { return 20 }") {
		t.Fatalf("the refusal: %+v", r)
	}
	if r := f.tool("edit_file", map[string]any{"path": "a.go", "old_string": "return 10", "new_string": "return 100"}); r.IsError {
		t.Fatalf("the edit after the refusal: %s", r.Content)
	}
	<-f.approvals
}
