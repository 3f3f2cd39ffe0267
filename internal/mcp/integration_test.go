package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/mcp"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// The tools listed are the registry's, in its order, with the same
// descriptions (rendered with the settings in force) and schemas; a tool
// the client cannot use is left out, as the daemon leaves it out.
func TestListIsTheRegistry(t *testing.T) {
	rg, _ := search.LookRg("")
	for _, tc := range []struct {
		name    string
		version string
		elicit  bool
		mode    protocol.Mode
		route   string
	}{
		{"newest protocol, no elicitation", latest, false, protocol.ModeDefault, "auto"},
		{"2025-11-25 with elicitation", v1125, true, protocol.ModeAcceptEdits, "elicitation"},
		{"2024-11-05", v1105, false, protocol.ModePlan, "terminal"},
		{"no elicitation, and questions go nowhere else", v1125, false, protocol.ModeDefault, "elicitation"},
	} {
		negotiated := tc.version
		if negotiated == latest {
			negotiated = "2026-07-28"
		}
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			opts := &sdk.ClientOptions{}
			if tc.elicit {
				opts.ElicitationHandler = (&elicitor{action: "cancel"}).handle
			}
			s := f.connect(t, newClient(opts), tc.version, "--mode", string(tc.mode), "--approvals", tc.route)
			if got := s.InitializeResult().ProtocolVersion; got != negotiated {
				t.Errorf("negotiated protocol %s, want %s", got, negotiated)
			}
			res, err := s.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			settings := tool.Settings{Mode: tc.mode, RgPath: rg}
			var want []protocol.ToolInfo
			for _, info := range tools.Builtin().Infos(&settings) {
				switch info.Name {
				case "problems": // needs an editor's diagnostics
					continue
				case "agent": // needs a client that offers sampling
					continue
				case "ask_user": // needs someone to ask: the client, or an approver
					if !tc.elicit && tc.route == "elicitation" {
						continue
					}
				}
				want = append(want, info)
			}
			if len(res.Tools) != len(want) {
				t.Fatalf("listed %d tools %v, want %d", len(res.Tools), names(res.Tools), len(want))
			}
			for i, got := range res.Tools {
				w := want[i]
				if got.Name != w.Name {
					t.Fatalf("tool %d is %s, want %s (registry order)", i, got.Name, w.Name)
				}
				if got.Description != w.Description {
					t.Errorf("%s: the description differs from the registry's:\n got %q\nwant %q", w.Name, got.Description, w.Description)
				}
				if !sameJSON(t, got.InputSchema, w.InputSchema) {
					t.Errorf("%s: the schema differs from the registry's", w.Name)
				}
				a := got.Annotations
				if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
					t.Fatalf("%s: incomplete annotations %+v", w.Name, a)
				}
				if a.ReadOnlyHint != w.ReadOnly || a.IdempotentHint != w.ReadOnly {
					t.Errorf("%s: readOnlyHint %v idempotentHint %v, want both %v", w.Name, a.ReadOnlyHint, a.IdempotentHint, w.ReadOnly)
				}
				if want := !w.ReadOnly && w.Risk != protocol.RiskLow; *a.DestructiveHint != want {
					t.Errorf("%s: destructiveHint %v, want %v", w.Name, *a.DestructiveHint, want)
				}
				if want := w.Name == "shell" || (w.ReadOnly && w.Risk == protocol.RiskHigh); *a.OpenWorldHint != want {
					t.Errorf("%s: openWorldHint %v, want %v", w.Name, *a.OpenWorldHint, want)
				}
				reg, _ := tools.Builtin().Lookup(w.Name)
				if changes := tool.ChangesFiles(reg); (got.OutputSchema != nil) != changes {
					t.Errorf("%s: outputSchema %v, want one exactly for the tools that change files (%v)", w.Name, got.OutputSchema, changes)
				}
			}
		})
	}
}

func names(ts []*sdk.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func sameJSON(t *testing.T, a any, b json.RawMessage) bool {
	t.Helper()
	ra, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var x, y any
	if err := json.Unmarshal(ra, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// read_file and grep answer as they do in the editor; a tool's own failure
// is a result with isError, not a protocol error.
func TestCallReadAndGrep(t *testing.T) {
	for _, version := range []string{latest, v1125, v1105} {
		t.Run("protocol "+version, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "notes/a.txt", "alpha\nbeta needle\ngamma\n")
			s := f.connect(t, newClient(nil), version)

			got := mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "notes/a.txt"}))
			if !strings.Contains(got, "2\tbeta needle") {
				t.Errorf("read_file: %q", got)
			}
			if hasRg() {
				got = mustOK(t, "grep", s.call(t, "grep", map[string]any{"pattern": "needle"}))
				if !strings.Contains(got, "a.txt:2:beta needle") {
					t.Errorf("grep: %q", got)
				}
			}
			res := s.call(t, "read_file", map[string]any{"path": "missing.txt"})
			if !res.IsError || !strings.Contains(text(res), "does not exist") {
				t.Errorf("reading a missing file: isError %v, %q", res.IsError, text(res))
			}
			res = s.call(t, "read_file", map[string]any{"path": 42})
			if !res.IsError || !strings.Contains(text(res), "invalid arguments") {
				t.Errorf("a wrong argument type: isError %v, %q", res.IsError, text(res))
			}
		})
	}
}

// An approval goes out as an elicitation that shows the diff; "yes" writes
// the change, whose result carries the diff and the undo checkpoint, and
// `tether checkpoints` and `tether undo` work on it.
func TestApprovalAccepted(t *testing.T) {
	for _, version := range []string{latest, v1125} {
		t.Run("protocol "+version, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "main.go", "package main\n\nfunc main() {}\n")
			e := &elicitor{action: "accept", content: map[string]any{"answer": "yes"}}
			s := f.connect(t, newClient(&sdk.ClientOptions{ElicitationHandler: e.handle}), version)

			mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "main.go"}))
			res := s.call(t, "edit_file", map[string]any{"path": "main.go", "old_string": "func main() {}", "new_string": "func main() { println(1) }"})
			got := mustOK(t, "edit_file", res)
			if f.read(t, "main.go") != "package main\n\nfunc main() { println(1) }\n" {
				t.Fatalf("the file is %q", f.read(t, "main.go"))
			}
			prompts := e.prompts()
			if len(prompts) != 1 || !strings.Contains(prompts[0], "+func main() { println(1) }") || !strings.Contains(prompts[0], "-func main() {}") {
				t.Fatalf("the prompt does not show the diff: %q", prompts)
			}
			var change struct {
				Diff, RequestID, Checkpoint string
			}
			structured(t, res, &change)
			if !strings.Contains(change.Diff, "+func main() { println(1) }") || change.Checkpoint == "" || !strings.HasPrefix(change.RequestID, "mcp-") {
				t.Fatalf("structured content %+v", change)
			}
			if !strings.Contains(got, "+func main() { println(1) }") || !strings.Contains(got, "tether undo "+change.Checkpoint) {
				t.Errorf("the text lacks the diff or the checkpoint: %q", got)
			}

			// A second change soon after is the same request: one checkpoint.
			mustOK(t, "write_file", s.call(t, "write_file", map[string]any{"path": "new.txt", "content": "new\n"}))
			list := f.runTether(t, "checkpoints", "--workspace", f.ws, "--json")
			var cps []protocol.Checkpoint
			if err := json.Unmarshal([]byte(list), &cps); err != nil {
				t.Fatalf("tether checkpoints --json: %v\n%s", err, list)
			}
			if len(cps) != 1 || cps[0].ID != change.Checkpoint || cps[0].RequestID != change.RequestID || len(cps[0].Files) != 2 {
				t.Fatalf("checkpoints %+v, want one (%s) holding both files", cps, change.Checkpoint)
			}
			f.runTether(t, "undo", "--workspace", f.ws, change.Checkpoint)
			if got := f.read(t, "main.go"); got != "package main\n\nfunc main() {}\n" {
				t.Errorf("after tether undo the file is %q", got)
			}
			if _, err := os.Stat(filepath.Join(f.ws, "new.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("after tether undo new.txt is still there: %v", err)
			}
		})
	}
}

// A pause longer than the quiet gap starts a new request: its own
// checkpoint.
func TestQuietGapSplitsRequests(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "a\n")
	s := f.connect(t, newClient(nil), v1125, "--mode", "acceptEdits", "--quiet-gap", "1ns")
	mustOK(t, "write_file", s.call(t, "write_file", map[string]any{"path": "b.txt", "content": "b\n"}))
	mustOK(t, "write_file", s.call(t, "write_file", map[string]any{"path": "c.txt", "content": "c\n"}))
	var cps []protocol.Checkpoint
	if err := json.Unmarshal([]byte(f.runTether(t, "checkpoints", "--workspace", f.ws, "--json")), &cps); err != nil {
		t.Fatal(err)
	}
	if len(cps) != 2 || cps[0].RequestID == cps[1].RequestID {
		t.Fatalf("checkpoints %+v, want two requests", cps)
	}
}

// Every way an approval can fail to be given refuses the step, with advice
// on how to give it; a decline that came back before anyone could read
// the question is reported as unseen, never as the user's no; the file is
// never changed.
func TestApprovalRefused(t *testing.T) {
	elicit := func(action string, content map[string]any) *sdk.ClientOptions {
		return &sdk.ClientOptions{ElicitationHandler: (&elicitor{action: action, content: content}).handle}
	}
	const unseen = "the client declined without showing the question: answer it in the editor or in `tether approvals`"
	// --instant-decline 1h: every decline of the test client is unseen; 0:
	// every one is the user's.
	for _, tc := range []struct {
		name    string
		version string
		client  *sdk.ClientOptions // nil: a client that cannot elicit
		instant string
		status  protocol.ChangeStatus
		want    []string
	}{
		{"declined unseen", v1125, elicit("decline", nil), "1h", protocol.StatusRefused, []string{unseen, "tether approvals"}},
		{"declined unseen, newest protocol", latest, elicit("decline", nil), "1h", protocol.StatusRefused, []string{unseen}},
		{"dismissed unseen", v1125, elicit("cancel", nil), "1h", protocol.StatusRefused, []string{unseen}},
		{"declined by the user", v1125, elicit("decline", nil), "0", protocol.StatusDeclined, []string{"The user declined"}},
		{"dismissed by the user", latest, elicit("cancel", nil), "0", protocol.StatusSkipped, []string{"skipped"}},
		{"answered no", v1125, elicit("accept", map[string]any{"answer": "no"}), "1h", protocol.StatusDeclined, []string{"The user declined"}},
		{"answered skip", latest, elicit("accept", map[string]any{"answer": "skip"}), "1h", protocol.StatusSkipped, []string{"skipped"}},
		{"cannot elicit", v1125, nil, "1h", protocol.StatusRefused, []string{"offers no form elicitation", "tether approvals", "--mode acceptEdits", "tether allow"}},
		{"cannot elicit, newest protocol", latest, nil, "1h", protocol.StatusRefused, []string{"offers no form elicitation", "--mode acceptEdits"}},
		{"cannot elicit, 2024-11-05", v1105, nil, "1h", protocol.StatusRefused, []string{"offers no form elicitation"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "a.txt", "one\n")
			s := f.connect(t, newClient(tc.client), tc.version, "--instant-decline", tc.instant)
			mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "a.txt"}))
			res := s.call(t, "edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"})
			if !res.IsError {
				t.Fatalf("the edit was not refused: %s", text(res))
			}
			for _, w := range tc.want {
				if !strings.Contains(text(res), w) {
					t.Errorf("the refusal lacks %q: %s", w, text(res))
				}
			}
			var got mcp.ChangeResult
			structured(t, res, &got)
			if got.Status != tc.status {
				t.Errorf("status %q, want %q", got.Status, tc.status)
			}
			if got := f.read(t, "a.txt"); got != "one\n" {
				t.Errorf("the file changed to %q", got)
			}
		})
	}
}

// A command needs approval too; a client that cannot elicit gets it
// refused, not run.
func TestShellRefusedWithoutElicitation(t *testing.T) {
	f := newFixture(t)
	s := f.connect(t, newClient(nil), v1125)
	res := s.call(t, "shell", map[string]any{"command": "touch ran.txt"})
	if !res.IsError || !strings.Contains(text(res), "tether allow") {
		t.Fatalf("the command was not refused with advice: %s", text(res))
	}
	if _, err := os.Stat(filepath.Join(f.ws, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran: %v", err)
	}
}

// ask_user is an elicitation with the options as a choice.
func TestAskUserThroughElicitation(t *testing.T) {
	for _, version := range []string{latest, v1125} {
		t.Run("protocol "+version, func(t *testing.T) {
			f := newFixture(t)
			e := &elicitor{action: "accept", content: map[string]any{"answer": "blue"}}
			s := f.connect(t, newClient(&sdk.ClientOptions{ElicitationHandler: e.handle}), version)
			got := mustOK(t, "ask_user", s.call(t, "ask_user", map[string]any{"question": "Which colour?", "options": []string{"red", "blue"}}))
			if !strings.Contains(got, "blue") {
				t.Errorf("ask_user: %q", got)
			}
			if p := e.prompts(); len(p) != 1 || p[0] != "Which colour?" {
				t.Errorf("prompts %q", p)
			}
		})
	}
}

// notifications/cancelled stops the call and kills the processes it
// started; a long call reports progress while it runs.
func TestCancelKillsTheCommand(t *testing.T) {
	for _, version := range []string{latest, v1125} {
		t.Run("protocol "+version, func(t *testing.T) {
			f := newFixture(t)
			progress := make(chan string, 16)
			client := newClient(&sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
				select {
				case progress <- req.Params.Message:
				default:
				}
			}})
			// Unconfined, so the pid the command writes is the host's
			// (a sandboxed command's is its pid namespace's).
			s := f.connect(t, client, version, "--mode", "bypass", "--sandbox", "off")
			pidFile := filepath.Join(f.ws, "pid")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			params := &sdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "echo $$ > pid; exec sleep 120"}}
			params.SetProgressToken("long-call")
			done := make(chan error, 1)
			go func() {
				_, err := s.CallTool(ctx, params)
				done <- err
			}()
			select {
			case msg := <-progress:
				if !strings.Contains(msg, "sleep 120") {
					t.Errorf("progress message %q does not say what runs", msg)
				}
			case err := <-done:
				t.Fatalf("the call ended before any progress: %v", err)
			case <-time.After(30 * time.Second):
				t.Fatal("no progress notification")
			}
			pid := readPID(t, pidFile)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("the cancelled call returned %v", err)
			}
			waitGone(t, pid)
			// The session goes on.
			mustOK(t, "list_dir", s.call(t, "list_dir", map[string]any{}))
		})
	}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatal("the command never wrote its pid")
	return 0
}

// waitGone waits until no process has the pid: killed and reaped.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if mcp.ProcessGone(pid) {
			return
		}
	}
	t.Errorf("process %d is still running after the cancel", pid)
	mcp.KillProcess(pid)
}

// Without --workspace the client's roots are the workspace, and a change
// of roots is followed.
func TestRootsAreTheWorkspace(t *testing.T) {
	f := newFixture(t)
	a := filepath.Join(t.TempDir(), "root a")
	b := filepath.Join(t.TempDir(), "root b")
	for dir, mark := range map[string]string{a: "in A\n", b: "in B\n"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "mark.txt"), []byte(mark), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.write(t, "mark.txt", "in the current folder\n")
	client := newClient(nil)
	client.AddRoots(&sdk.Root{URI: fileURI(a), Name: "A"})
	s := f.connectIn(t, f.ws, client, v1125)

	if got := mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "mark.txt"})); !strings.Contains(got, "in A") {
		t.Fatalf("read in the first root: %q", got)
	}
	client.RemoveRoots(fileURI(a))
	client.AddRoots(&sdk.Root{URI: fileURI(b), Name: "B"})
	if got := mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "mark.txt"})); !strings.Contains(got, "in B") {
		t.Fatalf("read after the roots changed: %q", got)
	}
	// Writes stay inside the roots.
	res := s.call(t, "write_file", map[string]any{"path": filepath.Join(a, "x.txt"), "content": "x"})
	if !res.IsError || !strings.Contains(text(res), "outside the workspace") {
		t.Errorf("a write into the old root: %s", text(res))
	}
}

// A client without roots runs in the folder tether was started in.
func TestNoRootsUsesTheCurrentFolder(t *testing.T) {
	f := newFixture(t)
	f.write(t, "mark.txt", "here\n")
	s := f.connectIn(t, f.ws, newClient(&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}), v1125)
	if got := mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "mark.txt"})); !strings.Contains(got, "here") {
		t.Fatalf("read: %q", got)
	}
}

// In dryRun a change is staged, not written, as in the editor: the result
// shows its diff and no checkpoint, and `tether staged` lists it.
func TestDryRunStages(t *testing.T) {
	f := newFixture(t)
	s := f.connect(t, newClient(nil), v1125, "--mode", "dryRun")
	res := s.call(t, "write_file", map[string]any{"path": "new.txt", "content": "staged\n"})
	got := mustOK(t, "write_file", res)
	if !strings.Contains(got, "+staged") || strings.Contains(got, "tether undo") {
		t.Errorf("result %q: want the diff and no checkpoint", got)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dryRun wrote the file: %v", err)
	}
	if list := f.runTether(t, "staged", "--workspace", f.ws); !strings.Contains(list, "new.txt") {
		t.Errorf("tether staged: %q", list)
	}
}

// Through tether mcp: "always" answered in the elicitation for a read
// outside the workspace saves that folder, which `tether allow` lists; the
// next file there is read without a prompt, a sibling whose name starts
// the same is prompted for, and after `tether allow --reset` the folder
// prompts again.
func TestOutsideAlwaysThroughMCP(t *testing.T) {
	f := newFixture(t)
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
	e := &elicitor{action: "accept", content: map[string]any{"answer": "always"}}
	s := f.connect(t, newClient(&sdk.ClientOptions{ElicitationHandler: e.handle}), v1125)
	mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": filepath.Join(lib, "a.h")}))
	if p := e.prompts(); len(p) != 1 || !strings.Contains(p[0], lib) {
		t.Fatalf("prompts %q", p)
	}
	if out := f.runTether(t, "allow", "--workspace", f.ws); !strings.Contains(out, "read in "+lib) {
		t.Fatalf("tether allow:\n%s", out)
	}

	e.mu.Lock()
	e.content = map[string]any{"answer": "no"}
	e.mu.Unlock()
	mustOK(t, "read_file in the saved folder", s.call(t, "read_file", map[string]any{"path": filepath.Join(lib, "b.h")}))
	if n := len(e.prompts()); n != 1 {
		t.Fatalf("the saved folder prompted again (%d prompts)", n)
	}
	if res := s.call(t, "read_file", map[string]any{"path": filepath.Join(root, "lib-evil", "c.h")}); !res.IsError {
		t.Fatalf("lib-evil was read: %s", text(res))
	}
	if n := len(e.prompts()); n != 2 {
		t.Fatalf("lib-evil did not prompt (%d prompts)", n)
	}
	f.runTether(t, "allow", "--workspace", f.ws, "--reset")
	if res := s.call(t, "read_file", map[string]any{"path": filepath.Join(lib, "b.h")}); !res.IsError {
		t.Fatalf("after reset the folder was read unasked: %s", text(res))
	}
	if n := len(e.prompts()); n != 3 {
		t.Fatalf("after reset: %d prompts, want 3", n)
	}
}
