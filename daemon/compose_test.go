package daemon_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
)

func startCompose(t *testing.T) *fixture {
	t.Helper()
	f := start(t, fixtureOptions{compose: true})
	f.initialize()
	return f
}

// A program that edits two files is one tools/call: its children are
// reported under the call's JSON-RPC id, its changes form one checkpoint,
// and one undo puts both files back.
func TestComposeActivityAndOneUndo(t *testing.T) {
	f := startCompose(t)
	f.write("a.txt", "alpha\n")
	f.write("b.txt", "beta\n")
	code := `for (const p of ["a.txt", "b.txt"]) {
		await tools.tether.read_file({path: p});
		await tools.tether.edit_file({path: p, old_string: "a\n", new_string: "A\n"});
	}
	return "edited"`
	ctx := waitCtx(t)
	call, err := f.client.Go(ctx, "c1", protocol.MethodToolsCall, map[string]any{"name": "compose", "arguments": map[string]any{"code": code}, "requestId": "r-compose"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := call.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var res protocol.ToolCallResult
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError {
		t.Fatalf("compose: %s", raw)
	}
	if res.Checkpoint == "" || !strings.Contains(res.Diff, "a.txt") || !strings.Contains(res.Diff, "b.txt") {
		t.Fatalf("no checkpoint or diff of both files: %+v", res)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if b, _ := os.ReadFile(filepath.Join(f.dir, name)); !strings.HasSuffix(string(b), "A\n") {
			t.Fatalf("%s not edited: %q", name, b)
		}
	}

	var acts []protocol.Activity
	for _, n := range f.client.Notifications() {
		if n.Method != protocol.MethodToolsActivity {
			continue
		}
		var a protocol.Activity
		if err := json.Unmarshal(n.Params, &a); err != nil {
			t.Fatal(err)
		}
		if a.CallID == "c1" { // the compose call itself, reported like every call
			continue
		}
		acts = append(acts, a)
	}
	if len(acts) != 8 {
		t.Fatalf("%d activity notifications, want 8 (4 calls, start and end): %+v", len(acts), acts)
	}
	for _, a := range acts {
		if a.ParentCallID != "c1" || a.RequestID != "r-compose" || !strings.HasPrefix(a.CallID, "c1.") {
			t.Errorf("activity not under the compose call: %+v", a)
		}
	}

	var list protocol.UndoListResult
	f.call(protocol.MethodUndoList, struct{}{}, &list)
	if len(list.Checkpoints) != 1 || len(list.Checkpoints[0].Files) != 2 {
		t.Fatalf("want one checkpoint of two files: %+v", list.Checkpoints)
	}
	var undone protocol.UndoResult
	f.call(protocol.MethodUndoUndo, struct{}{}, &undone)
	if len(undone.Restored) != 2 {
		t.Fatalf("undo restored %v", undone.Restored)
	}
	for name, want := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if b, _ := os.ReadFile(filepath.Join(f.dir, name)); string(b) != want {
			t.Errorf("%s after undo: %q", name, b)
		}
	}
}

// $/cancelRequest stops the program and the call it is waiting on.
func TestComposeCancelled(t *testing.T) {
	f := startCompose(t)
	ctx := waitCtx(t)
	code := `await tools.tether.count({tag: "first"});
	try { await tools.tether.block({tag: "b"}) } catch (e) {}
	await tools.tether.count({tag: "after"})`
	call, err := f.client.Go(ctx, "c2", protocol.MethodToolsCall, map[string]any{"name": "compose", "arguments": map[string]any{"code": code}, "requestId": "r"})
	if err != nil {
		t.Fatal(err)
	}
	if tag := <-f.tools.started; tag != "b" {
		t.Fatalf("started %q", tag)
	}
	if err := call.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := call.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var res protocol.ToolCallResult
	if err := json.Unmarshal(raw, &res); err != nil || !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Fatalf("reply: %s", raw)
	}
	if n := f.tools.counted.Load(); n != 1 {
		t.Fatalf("count ran %d times; the call after the cancel must not run", n)
	}
}

// The compose settings are validated by name and reach the programs.
func TestComposeSettings(t *testing.T) {
	for _, s := range []protocol.Settings{{ComposeTimeout: -1}, {ComposeMemoryBytes: -1}, {ComposeMaxCalls: -2}} {
		f := start(t, fixtureOptions{compose: true})
		e := f.callErr(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{}, &s))
		b, _ := json.Marshal(s)
		field, _, _ := strings.Cut(strings.Trim(string(b), "{}\""), "\"")
		if !strings.Contains(e.Message, "settings."+field) {
			t.Errorf("%s: error %q does not name the field", b, e.Message)
		}
	}
	f := start(t, fixtureOptions{compose: true})
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{ComposeMaxCalls: 2}), nil)
	res := f.tool("compose", map[string]any{"code": `for (let i = 0; i < 3; i++) await tools.tether.count({tag: "" + i})`})
	if !res.IsError || !strings.Contains(res.Content, "tool calls limit") || f.tools.counted.Load() != 2 {
		t.Fatalf("max calls not applied: %d runs, %+v", f.tools.counted.Load(), res)
	}
}
