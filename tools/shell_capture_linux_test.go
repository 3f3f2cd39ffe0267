//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/overlay/overlaytest"
	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// What a sandboxed command writes, taken in through the real sandbox and
// its overlay: asked after, not before; reviewed, applied, refused or
// undone as the mode and the user say.

// captureHarness is a harness whose session has the project's real
// stores (undo, staging, the state folder the layers go in), in XDG
// folders of its own, with the workspace made from tree.
func captureHarness(t *testing.T, mode protocol.Mode, tree map[string]string) *harness {
	t.Helper()
	needFullSandbox(t)
	home := t.TempDir()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
	h := newHarness(t)
	h.env.Settings.Mode = mode
	makeTree(t, h.dir, tree)
	st, err := stores.Open(h.dir, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h.env.Attach(st)
	h.stores = st
	return h
}

// makeTree writes tree into dir: name → content; "name/" is a folder,
// "->x" a link to x.
func makeTree(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	names := make([]string, 0, len(tree))
	for n := range tree {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if target, ok := strings.CutPrefix(tree[n], "->"); ok {
			must(t, os.Symlink(target, p))
			continue
		}
		must(t, os.WriteFile(p, []byte(tree[n]), 0o644))
	}
}

// undoLast undoes the latest checkpoint and fails on a conflict.
func (h *harness) undoLast() {
	h.t.Helper()
	rep, err := h.stores.Undo.Undo("")
	if err != nil {
		h.t.Fatal(err)
	}
	if len(rep.Conflicts) != 0 {
		h.t.Errorf("undo left files alone: %+v", rep.Conflicts)
	}
}

// sameTree fails t where dir differs from want.
func sameTree(t *testing.T, what string, want map[string]string, dir string) {
	t.Helper()
	for _, d := range overlaytest.DiffTrees(want, overlaytest.Tree(t, dir)) {
		t.Errorf("%s: %s", what, d)
	}
}

// shellAsked lists the approvals of kind shell, which come before a command runs.
func (h *harness) shellAsked() int {
	n := 0
	for _, r := range h.host.requests {
		if r.Kind == protocol.ApprovalShell {
			n++
		}
	}
	return n
}

var captureTree = map[string]string{
	".gitignore":  "build/\n*.log\n",
	"main.go":     "package main\n\nfunc main() {\n\tprintln(\"one\")\n}\n",
	"util.go":     "package main\n\n// two\n",
	"build/old.o": "old object\n",
}

const editTwoFiles = "sed -i 's/one/ONE/' main.go && sed -i 's/two/TWO/' util.go"

// In default mode a command that changes tracked files is not asked
// before it runs; its changes are reviewed after, as one set naming
// both files and not the ignored output; "yes" applies all of it.
func TestShellCapturedCommandIsReviewedAfterNotBefore(t *testing.T) {
	h := captureHarness(t, protocol.ModeDefault, captureTree)
	r := h.call("shell", map[string]any{"command": editTwoFiles + " && echo obj > build/new.o && echo ran"})
	if r.IsError {
		t.Fatalf("result: %s", r.Content)
	}
	if h.shellAsked() != 0 {
		t.Errorf("the command was asked before it ran: %+v", h.host.requests)
	}
	if len(h.host.requests) != 1 {
		t.Fatalf("want one review, got %d: %+v", len(h.host.requests), h.host.requests)
	}
	rev := h.host.requests[0]
	var files []string
	for _, f := range rev.Files {
		files = append(files, filepath.Base(f.Path))
	}
	if rev.Kind != protocol.ApprovalEdit || strings.Join(files, ",") != "main.go,util.go" {
		t.Errorf("the review: kind %s, files %v", rev.Kind, files)
	}
	if !strings.Contains(rev.Diff, "+\tprintln(\"ONE\")") || !strings.Contains(rev.Diff, "+// TWO") {
		t.Errorf("the review's diff:\n%s", rev.Diff)
	}
	if !strings.Contains(h.read("main.go"), "ONE") || !strings.Contains(h.read("util.go"), "TWO") || h.read("build/new.o") != "obj\n" {
		t.Errorf("not applied: %q %q", h.read("main.go"), h.read("util.go"))
	}
	// The output and exit code, then what was taken in.
	out, code, in := strings.Index(r.Content, "ran\n"), strings.Index(r.Content, "[exit code 0"), strings.Index(r.Content, "main.go")
	if out < 0 || code < out || in < code {
		t.Errorf("the result is not output, exit code, changes:\n%s", r.Content)
	}
	// One undo puts back what the command wrote, the ignored output too.
	h.undoLast()
	if h.read("main.go") != captureTree["main.go"] || h.read("util.go") != captureTree["util.go"] {
		t.Errorf("after undo: %q %q", h.read("main.go"), h.read("util.go"))
	}
	if _, err := os.Stat(filepath.Join(h.dir, "build/new.o")); err == nil {
		t.Error("undo left the ignored output")
	}
}

// "No" to the review leaves the workspace as it was, ignored outputs
// included.
func TestShellCapturedNoLeavesTheWorkspace(t *testing.T) {
	h := captureHarness(t, protocol.ModeDefault, captureTree)
	before := overlaytest.Tree(t, h.dir)
	h.host.answer = protocol.AnswerNo
	r := h.call("shell", map[string]any{"command": editTwoFiles + " && echo obj > build/new.o && rm build/old.o"})
	if !r.IsError || !strings.Contains(r.Content, "declined") {
		t.Errorf("result: %s", r.Content)
	}
	if len(h.host.requests) != 1 || h.shellAsked() != 0 {
		t.Errorf("asked: %+v", h.host.requests)
	}
	sameTree(t, "after no", before, h.dir)
}

// A change only under an ignored folder is applied without a question,
// and still undone.
func TestShellCapturedIgnoredOutputNeedsNoQuestion(t *testing.T) {
	h := captureHarness(t, protocol.ModeDefault, captureTree)
	before := overlaytest.Tree(t, h.dir)
	r := h.call("shell", map[string]any{"command": "mkdir -p build/sub && echo a > build/sub/a.o && echo log > run.log"})
	if r.IsError || len(h.host.requests) != 0 {
		t.Fatalf("result %s, asked %+v", r.Content, h.host.requests)
	}
	if h.read("build/sub/a.o") != "a\n" || h.read("run.log") != "log\n" {
		t.Error("the ignored outputs were not applied")
	}
	h.undoLast()
	sameTree(t, "after undo", before, h.dir)
}

// Plan mode runs a sandboxed command unasked and applies nothing it
// wrote; a command that changes nothing just runs. One with network is
// still refused before it runs.
func TestShellCapturedPlanAppliesNothing(t *testing.T) {
	h := captureHarness(t, protocol.ModePlan, captureTree)
	before := overlaytest.Tree(t, h.dir)
	r := h.call("shell", map[string]any{"command": editTwoFiles + " && echo obj > build/new.o && echo ran"})
	if !r.IsError || !strings.Contains(r.Content, "ran\n") || !strings.Contains(r.Content, "Plan mode") {
		t.Errorf("result: %s", r.Content)
	}
	if len(h.host.requests) != 0 {
		t.Errorf("asked in plan mode: %+v", h.host.requests)
	}
	sameTree(t, "after plan", before, h.dir)
	if r := h.call("shell", map[string]any{"command": "go version >/dev/null; echo fine"}); r.IsError || !strings.Contains(r.Content, "fine") {
		t.Errorf("a command that changed nothing: %s", r.Content)
	}
	r = h.call("shell", map[string]any{"command": "echo x > net.txt", "network": true})
	if !r.IsError || !strings.Contains(r.Content, "it reaches the network") {
		t.Errorf("plan with network: %s", r.Content)
	}
	sameTree(t, "after plan with network", before, h.dir)
}

// acceptEdits applies what the command wrote without a question.
func TestShellCapturedAcceptEditsApplies(t *testing.T) {
	h := captureHarness(t, protocol.ModeAcceptEdits, captureTree)
	r := h.call("shell", map[string]any{"command": editTwoFiles})
	if r.IsError || len(h.host.requests) != 0 {
		t.Fatalf("result %s, asked %+v", r.Content, h.host.requests)
	}
	if !strings.Contains(h.read("main.go"), "ONE") || !strings.Contains(h.read("util.go"), "TWO") {
		t.Error("not applied")
	}
}

// dryRun stages what the command wrote; the workspace is unchanged.
func TestShellCapturedDryRunStages(t *testing.T) {
	h := captureHarness(t, protocol.ModeDryRun, captureTree)
	before := overlaytest.Tree(t, h.dir)
	r := h.call("shell", map[string]any{"command": editTwoFiles})
	if r.IsError || !strings.Contains(r.Content, "staged") || len(h.host.requests) != 0 {
		t.Fatalf("result %s, asked %+v", r.Content, h.host.requests)
	}
	sameTree(t, "after a dry run", before, h.dir)
	staged, err := h.stores.Staging.List()
	if err != nil || len(staged) != 1 || len(staged[0].Changes) != 2 {
		t.Errorf("staged: %+v %v", staged, err)
	}
}

// A file the user changes while the command runs keeps the user's
// version; the command's version is in the checkpoint.
func TestShellCapturedUserEditDuringTheCommandIsKept(t *testing.T) {
	h := captureHarness(t, protocol.ModeBypass, captureTree)
	layers := filepath.Join(h.env.Layers, "layers")
	// The signal to go on comes through a folder the sandbox writes
	// through (shellWritablePaths), not the workspace, which the command
	// sees as it was when its overlay was made.
	signal, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	h.env.Settings.Sandbox.Writable = []string{signal}
	var wg sync.WaitGroup
	var res tool.Result
	wg.Add(1)
	go func() {
		defer wg.Done()
		res = h.call("shell", map[string]any{"command": "echo command > main.go && echo c > other.txt && while [ ! -e " + signal + "/go-on ]; do sleep 0.02; done; echo ended", "timeout": 60})
	}()
	// Wait until the command has written main.go into its layer, then
	// edit the real file and let the command end.
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(layers, "*", "0", "upper", "main.go"))
		if len(m) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never wrote main.go into its layer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	must(t, os.WriteFile(filepath.Join(h.dir, "main.go"), []byte("the user's\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(signal, "go-on"), nil, 0o644))
	wg.Wait()
	r := res.Content
	if !strings.Contains(r, "ended") || !strings.Contains(r, "[exit code 0") {
		t.Fatalf("the command did not end by itself:\n%s", r)
	}
	if got := h.read("main.go"); got != "the user's\n" {
		t.Errorf("the user's edit was overwritten: %q", got)
	}
	if h.read("other.txt") != "c\n" {
		t.Error("the rest of the set was not applied")
	}
	if !strings.Contains(r, "Not applied: main.go") || !strings.Contains(r, "undo checkpoint") {
		t.Errorf("the result does not name the held file:\n%s", r)
	}
	cps, err := h.stores.Undo.List()
	if err != nil || len(cps) == 0 {
		t.Fatalf("checkpoints: %v %v", cps, err)
	}
	show, err := h.stores.Undo.Show(cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(show, "set aside main.go") || !strings.Contains(show, "+command\n") {
		t.Errorf("the checkpoint does not keep the command's version: %+v", show)
	}
}

// The capture matrix through the real sandbox: each command's changes
// leave the workspace as running it straight there would (bytes, modes,
// owners, links, folders), and undo puts back exactly what was there.
func TestShellCaptureMatrixThroughTheSandbox(t *testing.T) {
	tree := map[string]string{
		"a.txt":       "alpha\nbeta\n",
		"b.txt":       "bee\n",
		"run.sh":      "echo hi\n",
		"d/x.txt":     "x\n",
		"d/sub/y.txt": "y\n",
		"e/":          "",
		"link":        "->a.txt",
	}
	for _, tc := range []struct{ name, script string }{
		{"create", "printf 'new\\n' > new.txt"},
		{"overwrite", "printf 'ALPHA\\n' > a.txt"},
		{"append", "echo delta >> a.txt"},
		{"truncate", ": > a.txt"},
		{"delete", "rm b.txt"},
		{"rename within and across folders", "mv a.txt a2.txt && mv b.txt e/b.txt"},
		{"folder made and filled", "mkdir -p n/m && echo 1 > n/m/one && echo 2 > n/two"},
		{"folder removed", "rm -r d"},
		{"chmod +x", "chmod +x run.sh"},
		{"symlink made and replaced", "ln -s b.txt blink && ln -sfn run.sh link"},
		{"hard link", "echo n > h1 && ln h1 h2"},
		{"made and deleted", "echo gone > tmp && mkdir tmpd && echo x > tmpd/f && rm -r tmp tmpd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := captureHarness(t, protocol.ModeBypass, tree)
			before := overlaytest.Tree(t, h.dir)
			want := plainRun(t, tree, tc.script)
			r := h.call("shell", map[string]any{"command": tc.script})
			if r.IsError {
				t.Fatalf("result: %s", r.Content)
			}
			sameTree(t, "after the command", want, h.dir)
			if tc.name == "hard link" {
				a, _ := os.Stat(filepath.Join(h.dir, "h1"))
				b, _ := os.Stat(filepath.Join(h.dir, "h2"))
				if a == nil || b == nil || !os.SameFile(a, b) {
					t.Error("h1 and h2 are not one file")
				}
			}
			if tc.name == "made and deleted" {
				if cps, _ := h.stores.Undo.List(); len(cps) != 0 {
					t.Errorf("a command that left nothing made a checkpoint: %+v", cps)
				}
				return
			}
			h.undoLast()
			sameTree(t, "after undo", before, h.dir)
		})
	}
}

// plainRun runs script straight on a copy of tree and describes what it
// leaves.
func plainRun(t *testing.T, tree map[string]string, script string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	makeTree(t, dir, tree)
	cmd := exec.Command("/bin/sh", "-c", "set -e\n"+script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the script on a plain copy: %v\n%s", err, out)
	}
	return overlaytest.Tree(t, dir)
}

// 10,000 files from one command, and (unless -short) a file over 100 MB,
// through the sandbox: applied byte-exact, undone.
func TestShellCaptureManyFilesAndALargeOne(t *testing.T) {
	h := captureHarness(t, protocol.ModeBypass, map[string]string{"keep.txt": "keep\n"})
	before := overlaytest.Tree(t, h.dir)
	script := "mkdir many && cd many && seq 1 10000 | while read i; do echo $i > f$i; done"
	if !testing.Short() {
		script += " && cd .. && head -c 110000000 /dev/urandom > big.bin && sha256sum big.bin > big.sum"
	}
	r := h.call("shell", map[string]any{"command": script, "timeout": 600})
	if r.IsError {
		t.Fatalf("result: %s", r.Content)
	}
	entries, err := os.ReadDir(filepath.Join(h.dir, "many"))
	if err != nil || len(entries) != 10000 || h.read("many/f9999") != "9999\n" {
		t.Fatalf("many: %d entries, %v", len(entries), err)
	}
	if !testing.Short() {
		check := exec.Command("sha256sum", "-c", "big.sum")
		check.Dir = h.dir
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("the large file is not the command's: %v %s", err, out)
		}
	}
	h.undoLast()
	sameTree(t, "after undo", before, h.dir)
}

// At the landlock level there is no overlay: the command asks before it
// runs, as before, and its result says its changes are not in the
// checkpoint and why. So does a background job at the full level.
func TestShellUncapturedLevelsAskAndSaySo(t *testing.T) {
	h := captureHarness(t, protocol.ModeDefault, captureTree)
	h.env.Settings.Sandbox.Mode = sandbox.SettingLandlock
	r := h.call("shell", map[string]any{"command": "sed -i 's/one/ONE/' main.go"})
	if h.shellAsked() != 1 {
		t.Errorf("asked before running %d times, want 1", h.shellAsked())
	}
	if !strings.Contains(r.Content, "without Tether's overlay (sandbox level: landlock)") || !strings.Contains(r.Content, "not in this request's undo checkpoint") {
		t.Errorf("result: %s", r.Content)
	}
	if !strings.Contains(h.read("main.go"), "ONE") {
		t.Error("the command did not run")
	}

	h = captureHarness(t, protocol.ModeDefault, captureTree)
	h.withJobs()
	r = h.call("shell", map[string]any{"command": "echo job > job.txt", "background": true})
	if h.shellAsked() != 1 || !strings.Contains(r.Content, "background jobs write the workspace directly") {
		t.Errorf("background: asked %d, result %s", h.shellAsked(), r.Content)
	}
}

// A command in a workspace of two folders: each folder is seen through
// its own overlay; a file moved from one to the other is taken in from
// both layers, and undone.
func TestShellCaptureAcrossWorkspaceFolders(t *testing.T) {
	needFullSandbox(t)
	home := t.TempDir()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	makeTree(t, one, map[string]string{"a.txt": "from one\n"})
	makeTree(t, two, map[string]string{"b.txt": "from two\n"})
	before := []map[string]string{overlaytest.Tree(t, one), overlaytest.Tree(t, two)}
	ws, err := workspace.New(one, two)
	must(t, err)
	t.Cleanup(func() { ws.Close() })
	st, err := stores.Open(ws.Primary(), stores.Options{Roots: ws.Paths()})
	must(t, err)
	t.Cleanup(func() { st.Close() })
	host := &fakeHost{answer: protocol.AnswerYes}
	h := &harness{t: t, dir: ws.Primary(), host: host, sess: tool.NewSession(), reg: Builtin(), stores: st}
	h.env = &tool.Env{Workspace: ws, Host: host, Settings: tool.Settings{Mode: protocol.ModeDefault, RgPath: findRg()}}
	h.env.Attach(st)
	r := h.call("shell", map[string]any{"command": "mv a.txt ../two/a.txt && echo more >> ../two/b.txt"})
	if r.IsError || h.shellAsked() != 0 || len(host.requests) != 1 || len(host.requests[0].Files) != 3 {
		t.Fatalf("result %s; asked %+v", r.Content, host.requests)
	}
	if _, err := os.Stat(filepath.Join(one, "a.txt")); err == nil {
		t.Error("a.txt is still in the first folder")
	}
	if got, _ := os.ReadFile(filepath.Join(two, "a.txt")); string(got) != "from one\n" {
		t.Errorf("two/a.txt = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(two, "b.txt")); string(got) != "from two\nmore\n" {
		t.Errorf("two/b.txt = %q", got)
	}
	h.undoLast()
	sameTree(t, "one after undo", before[0], one)
	sameTree(t, "two after undo", before[1], two)
}

// layerSets lists the sets of layers left under the project's state folder.
func (h *harness) layerSets() []string {
	h.t.Helper()
	entries, err := os.ReadDir(filepath.Join(h.env.Layers, "layers"))
	if err != nil && !os.IsNotExist(err) {
		h.t.Fatal(err)
	}
	var sets []string
	for _, e := range entries {
		if e.IsDir() {
			sets = append(sets, e.Name())
		}
	}
	return sets
}

// A command's layers go whatever happens: after a timeout (what it wrote
// is taken in) and after the call is cancelled (nothing is applied).
func TestShellCaptureLayersGoAfterTimeoutAndCancel(t *testing.T) {
	h := captureHarness(t, protocol.ModeBypass, map[string]string{"keep.txt": "keep\n"})
	r := h.call("shell", map[string]any{"command": "echo late > timed.txt; sleep 60", "timeout": 1})
	if !strings.Contains(r.Content, "ran past its timeout") || h.read("timed.txt") != "late\n" {
		t.Errorf("after a timeout: %s", r.Content)
	}
	if sets := h.layerSets(); len(sets) != 0 {
		t.Errorf("layers left after a timeout: %v", sets)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result)
	go func() {
		raw, _ := json.Marshal(map[string]any{"command": "echo cancelled > cancelled.txt; sleep 60"})
		done <- h.reg.Invoke(ctx, &tool.Call{Name: "shell", Args: raw, RequestID: "r2", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(h.env.Layers, "layers", "*", "0", "upper", "cancelled.txt"))
		if len(m) == 1 {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatal("the command never wrote into its layer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	res := <-done
	if !strings.Contains(res.Content, "None of what the command wrote was applied") {
		t.Errorf("after a cancel: %s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "cancelled.txt")); err == nil {
		t.Error("a cancelled command's write reached the workspace")
	}
	if sets := h.layerSets(); len(sets) != 0 {
		t.Errorf("layers left after a cancel: %v", sets)
	}
}

// Where a command's overlay cannot be set up (a file system overlayfs
// does not take), the command did not run; it then runs without one,
// asked first as a command whose writes go straight to the workspace,
// and its result says so. Plan mode refuses it.
func TestShellWithoutAWorkingOverlayAsksAndRunsUncaptured(t *testing.T) {
	broken := func(_ string, folders []string) (*overlay.Set, error) {
		missing := filepath.Join(t.TempDir(), "missing")
		return &overlay.Set{Layers: []overlay.Layer{{Folder: folders[0], Upper: missing + "/upper", Work: missing + "/work"}}}, nil
	}
	saved := allocateLayers
	allocateLayers = broken
	t.Cleanup(func() { allocateLayers = saved })

	h := captureHarness(t, protocol.ModeDefault, captureTree)
	r := h.call("shell", map[string]any{"command": "sed -i 's/one/ONE/' main.go"})
	if h.shellAsked() != 1 || len(h.host.requests) != 1 {
		t.Errorf("asked %+v, want one question before it ran", h.host.requests)
	}
	if !strings.Contains(h.read("main.go"), "ONE") {
		t.Errorf("the command did not run: %s", r.Content)
	}
	if !strings.Contains(r.Content, "its overlay could not be set up here") || !strings.Contains(r.Content, "not in this request's undo checkpoint") {
		t.Errorf("result: %s", r.Content)
	}
	// A read-only command runs unasked all the same.
	if r := h.call("shell", map[string]any{"command": "cat main.go"}); r.IsError || len(h.host.requests) != 1 {
		t.Errorf("a read-only command: %s, asked %d", r.Content, len(h.host.requests))
	}

	h = captureHarness(t, protocol.ModePlan, captureTree)
	r = h.call("shell", map[string]any{"command": "sed -i 's/one/ONE/' main.go"})
	if !r.IsError || !strings.Contains(r.Content, "could not be") || strings.Contains(h.read("main.go"), "ONE") {
		t.Errorf("plan mode without a working overlay: %s", r.Content)
	}
}
