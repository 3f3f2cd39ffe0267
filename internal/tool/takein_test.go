package tool

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/overlay/overlaytest"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// reviewHost answers every approval with answer and keeps what it was asked.
type reviewHost struct {
	NoHost
	mu     sync.Mutex
	asked  []protocol.ApprovalRequestParams
	answer func(protocol.ApprovalRequestParams) protocol.ApprovalRequestResult
}

func (h *reviewHost) Approve(_ context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, req)
	return h.answer(req), nil
}

func answer(a protocol.Answer) func(protocol.ApprovalRequestParams) protocol.ApprovalRequestResult {
	return func(protocol.ApprovalRequestParams) protocol.ApprovalRequestResult {
		return protocol.ApprovalRequestResult{Answer: a}
	}
}

// captureFixture is one or more workspace folders made from a tree, with
// the project's real stores, a host that answers reviews, and the
// workspace's tree as it was at the start.
type captureFixture struct {
	t       testing.TB
	env     *Env
	st      *stores.Stores
	host    *reviewHost
	folders []string
	before  []map[string]string
}

// newCapture makes folders (each a tree: name → content; "name/" is a
// folder, "->x" a link to x) in mode.
func newCapture(t testing.TB, mode protocol.Mode, trees ...map[string]string) *captureFixture {
	t.Helper()
	if why := overlaytest.Available(); why != "" {
		t.Skip(why)
	}
	home := t.TempDir()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &captureFixture{t: t, host: &reviewHost{answer: answer(protocol.AnswerYes)}}
	for i, tree := range trees {
		dir := filepath.Join(base, fmt.Sprintf("ws%d", i+1))
		writeTree(t, dir, tree)
		f.folders = append(f.folders, dir)
		f.before = append(f.before, overlaytest.Tree(t, dir))
	}
	ws, err := workspace.New(f.folders...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f.st, err = stores.Open(ws.Primary(), stores.Options{Roots: f.folders})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.st.Close() })
	f.env = &Env{Workspace: ws, Host: f.host, Dirty: &diagnostics.Dirty{}, Settings: Settings{Mode: mode, SettleTime: -1}}
	f.env.Attach(f.st)
	return f
}

func writeTree(t testing.TB, dir string, tree map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(tree))
	for n := range tree {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(tree[n], "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(tree[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs script over the overlays of a fresh set and takes in what it
// wrote, as request req.
func (f *captureFixture) run(req, script string) Result {
	f.t.Helper()
	set, err := overlay.Allocate(project.StateDir(f.env.Workspace.Primary()), f.folders)
	if err != nil {
		f.t.Fatal(err)
	}
	defer set.Remove()
	overlaytest.Run(f.t, set, script)
	c := &Call{Name: "shell", RequestID: req, Budget: NewBudget(0, 0), Session: NewSession(), Env: f.env}
	res, err := c.TakeIn(context.Background(), set, script)
	if err != nil {
		f.t.Fatalf("TakeIn: %v\n%s", err, res.Content)
	}
	return res
}

// expected runs script straight on a copy of the starting trees (the
// folders side by side, as in the workspace) and returns what it leaves:
// what taking the command in must reproduce.
func (f *captureFixture) expected(trees []map[string]string, script string) []map[string]string {
	f.t.Helper()
	base := f.t.TempDir()
	var dirs []string
	for i, tree := range trees {
		dir := filepath.Join(base, fmt.Sprintf("ws%d", i+1))
		writeTree(f.t, dir, tree)
		dirs = append(dirs, dir)
	}
	cmd := exec.Command("/bin/sh", "-c", "set -e\n"+script)
	cmd.Dir = dirs[0]
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("the script on a plain copy: %v\n%s", err, out)
	}
	var out []map[string]string
	for _, d := range dirs {
		out = append(out, overlaytest.Tree(f.t, d))
	}
	return out
}

func (f *captureFixture) expectTrees(what string, want []map[string]string) {
	f.t.Helper()
	for i, dir := range f.folders {
		for _, d := range overlaytest.DiffTrees(want[i], overlaytest.Tree(f.t, dir)) {
			f.t.Errorf("%s: ws%d/%s", what, i+1, d)
		}
	}
}

func (f *captureFixture) undo() {
	f.t.Helper()
	rep, err := f.st.Undo.Undo("")
	if err != nil {
		f.t.Fatal(err)
	}
	if len(rep.Conflicts) != 0 {
		f.t.Errorf("undo left files alone: %+v", rep.Conflicts)
	}
}

var matrixTree = map[string]string{
	"a.txt":       "alpha\nbeta\ngamma\n",
	"b.txt":       "bee\n",
	"run.sh":      "echo hi\n",
	"d/x.txt":     "x\n",
	"d/sub/y.txt": "y\n",
	"d/sub/none/": "",
	"e/":          "",
	"link":        "->a.txt",
	"old/o.txt":   "o\n",
}

// The capture matrix: each command's changes, taken in from its overlay,
// leave the workspace exactly as running it straight there would (bytes,
// modes, owners, links, folders), and undo puts back exactly what was.
func TestCaptureMatrix(t *testing.T) {
	second := map[string]string{"other.txt": "other\n"}
	for _, tc := range []struct {
		name, script string
		two          bool
	}{
		{"create", "printf 'new\\n' > new.txt", false},
		{"overwrite", "printf 'ALPHA\\n' > a.txt", false},
		{"append", "echo delta >> a.txt", false},
		{"truncate", ": > a.txt", false},
		{"delete", "rm b.txt", false},
		{"rename within a folder", "mv a.txt a2.txt", false},
		{"rename across folders", "mv a.txt d/sub/a.txt && mv old e/old", false},
		{"rename across workspace folders", "mv a.txt ../ws2/a.txt && mv ../ws2/other.txt other.txt", true},
		{"folder made and filled", "mkdir -p n/m && echo 1 > n/m/one && echo 2 > n/two", false},
		{"folder removed", "rm -r d", false},
		{"chmod +x", "chmod +x run.sh", false},
		{"symlink made and replaced", "ln -s b.txt blink && ln -sfn run.sh link", false},
		{"hard link", "ln b.txt b-hard.txt && echo n > h1 && ln h1 h2", false},
		{"made and deleted", "echo gone > tmp && mkdir tmpd && echo x > tmpd/f && rm -r tmp tmpd", false},
		{"file becomes folder and back", "rm a.txt && mkdir a.txt && echo in > a.txt/in && rm -r e && echo f > e", false},
		{"nothing", "cat a.txt > /dev/null", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trees := []map[string]string{matrixTree}
			if tc.two {
				trees = append(trees, second)
			}
			f := newCapture(t, protocol.ModeBypass, trees...)
			want := f.expected(trees, tc.script)
			res := f.run("r1", tc.script)
			if res.IsError {
				t.Fatalf("result: %s", res.Content)
			}
			f.expectTrees("after the command", want)
			if strings.Contains(tc.name, "hard link") {
				for _, pair := range [][2]string{{"b.txt", "b-hard.txt"}, {"h1", "h2"}} {
					a, _ := os.Stat(filepath.Join(f.folders[0], pair[0]))
					b, _ := os.Stat(filepath.Join(f.folders[0], pair[1]))
					if a == nil || b == nil || !os.SameFile(a, b) {
						t.Errorf("%s and %s are not one file", pair[0], pair[1])
					}
				}
			}
			noOverlayXattrs(t, f.folders)
			if tc.name == "nothing" || tc.name == "made and deleted" {
				if res.Content != "" {
					t.Errorf("a command that changed nothing says: %q", res.Content)
				}
				return
			}
			f.undo()
			f.expectTrees("after undo", f.before)
		})
	}
}

var reviewTree = map[string]string{
	".gitignore":   "build/\n*.log\n.vscode/\n",
	"main.go":      "package main\n\nfunc main() {\n\tprintln(\"one\")\n}\n\n// a\n// b\n// c\n// d\n// e\n// f\n// g\n\nfunc other() {\n\tprintln(\"two\")\n}\n",
	"util.go":      "package main\n",
	"build/old.o":  "old object\n",
	"keep.log":     "a log the user keeps\n",
	".vscode/x":    "",
	"notes/a.md":   "notes\n",
	"build/keep.o": "another\n",
}

const editTwo = "sed -i 's/one/ONE/; s/two/TWO/' main.go && echo '// more' >> util.go"

func TestReviewOfATrackedChange(t *testing.T) {
	f := newCapture(t, protocol.ModeDefault, reviewTree)
	res := f.run("r1", editTwo+" && mkdir -p build && echo obj > build/new.o")
	if len(f.host.asked) != 1 {
		t.Fatalf("%d approvals, want one review of the set", len(f.host.asked))
	}
	req := f.host.asked[0]
	if req.Kind != protocol.ApprovalEdit || len(req.Files) != 2 {
		t.Fatalf("review: kind %s, %d files: %+v", req.Kind, len(req.Files), req.Files)
	}
	var paths []string
	for _, fc := range req.Files {
		paths = append(paths, filepath.Base(fc.Path))
		if fc.Status != "modified" || fc.Original == nil || fc.Proposed == nil || len(fc.Hunks) == 0 {
			t.Errorf("%s: %+v", fc.Path, fc)
		}
	}
	if !slices.Equal(paths, []string{"main.go", "util.go"}) || !strings.Contains(req.Diff, "+\tprintln(\"ONE\")") {
		t.Errorf("files %v, diff:\n%s", paths, req.Diff)
	}
	if got := readFile(t, f.folders[0], "main.go"); !strings.Contains(got, "ONE") || !strings.Contains(got, "TWO") {
		t.Errorf("main.go after yes: %q", got)
	}
	if readFile(t, f.folders[0], "build/new.o") != "obj\n" {
		t.Error("the ignored output was not applied")
	}
	if !strings.Contains(res.Content, "edited main.go") || !strings.Contains(res.Content, "1 ignored output file (under build)") {
		t.Errorf("result: %s", res.Content)
	}
	f.undo()
	f.expectTrees("after undo", f.before)
}

func TestReviewAnswers(t *testing.T) {
	for _, tc := range []struct {
		answer protocol.Answer
		files  []protocol.FileAnswer
		// what each file holds afterwards, and whether the ignored output came
		main, util string
		output     bool
	}{
		{answer: protocol.AnswerNo, main: "one", util: "", output: false},
		{answer: protocol.AnswerSkip, main: "one", util: "", output: true},
		{answer: protocol.AnswerYes, files: []protocol.FileAnswer{{Path: "util.go", Skip: true}, {Path: "main.go", Hunks: []int{2}}}, main: "TWO", util: "", output: true},
		{answer: protocol.AnswerAlways, main: "ONE", util: "// more", output: true},
	} {
		t.Run(string(tc.answer), func(t *testing.T) {
			f := newCapture(t, protocol.ModeDefault, reviewTree)
			f.host.answer = func(req protocol.ApprovalRequestParams) protocol.ApprovalRequestResult {
				out := protocol.ApprovalRequestResult{Answer: tc.answer}
				for _, fa := range tc.files {
					fa.Path = filepath.Join(f.folders[0], fa.Path)
					out.Files = append(out.Files, fa)
				}
				return out
			}
			res := f.run("r1", editTwo+" && mkdir -p build && echo obj > build/new.o")
			main, util := readFile(t, f.folders[0], "main.go"), readFile(t, f.folders[0], "util.go")
			if !strings.Contains(main, tc.main) || (tc.main == "TWO" && strings.Contains(main, "ONE")) {
				t.Errorf("main.go: %q, want it to hold %q", main, tc.main)
			}
			if tc.util == "" && util != reviewTree["util.go"] || tc.util != "" && !strings.Contains(util, tc.util) {
				t.Errorf("util.go: %q", util)
			}
			_, err := os.Stat(filepath.Join(f.folders[0], "build/new.o"))
			if (err == nil) != tc.output {
				t.Errorf("the ignored output applied: %v, want %v", err == nil, tc.output)
			}
			if tc.answer == protocol.AnswerNo {
				f.expectTrees("after no", f.before)
				if !res.IsError || !strings.Contains(res.Content, "declined") {
					t.Errorf("result: %s", res.Content)
				}
			}
			if tc.files != nil && (!strings.Contains(res.Content, "kept only part of main.go (kept hunk(s) 2 of 2)") || !strings.Contains(res.Content, "left out util.go")) {
				t.Errorf("result: %s", res.Content)
			}
			if tc.answer == protocol.AnswerAlways {
				// The next command's tracked changes apply without a review.
				f.run("r2", "echo '// again' >> util.go")
				if len(f.host.asked) != 1 || !strings.Contains(readFile(t, f.folders[0], "util.go"), "again") {
					t.Errorf("after always: %d reviews, util.go %q", len(f.host.asked), readFile(t, f.folders[0], "util.go"))
				}
			}
		})
	}
}

func TestIgnoredOutputsNeedNoReview(t *testing.T) {
	f := newCapture(t, protocol.ModeDefault, reviewTree)
	f.run("r1", "mkdir -p build/sub && echo a > build/sub/a.o && echo b > build/old.o && echo x >> keep.log && echo new > new.log")
	if len(f.host.asked) != 0 {
		t.Fatalf("an ignored output was reviewed: %+v", f.host.asked)
	}
	if readFile(t, f.folders[0], "build/old.o") != "b\n" || readFile(t, f.folders[0], "new.log") != "new\n" {
		t.Error("the outputs were not applied")
	}
	f.undo()
	f.expectTrees("after undo", f.before)
}

// Removing ignored files the command did not make, and writing a sensitive
// path even where it is ignored, are reviewed.
func TestRemovalsAndSensitivePathsAreReviewedEvenWhenIgnored(t *testing.T) {
	f := newCapture(t, protocol.ModeDefault, reviewTree)
	f.host.answer = answer(protocol.AnswerNo)
	f.run("r1", "rm -r build && mkdir -p .vscode && echo '{}' > .vscode/tasks.json && echo '{}' > .mcp.json")
	if len(f.host.asked) != 1 {
		t.Fatalf("%d reviews", len(f.host.asked))
	}
	var names []string
	for _, fc := range f.host.asked[0].Files {
		rel, _ := filepath.Rel(f.folders[0], fc.Path)
		names = append(names, filepath.ToSlash(rel))
	}
	for _, want := range []string{"build/old.o", "build/keep.o", "build", ".vscode/tasks.json", ".mcp.json"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not reviewed: %v", want, names)
		}
	}
	f.expectTrees("after no", f.before)
}

func TestAcceptEditsAsksOnlyForSensitivePaths(t *testing.T) {
	f := newCapture(t, protocol.ModeAcceptEdits, reviewTree)
	f.run("r1", editTwo)
	if len(f.host.asked) != 0 || !strings.Contains(readFile(t, f.folders[0], "main.go"), "ONE") {
		t.Fatalf("acceptEdits: %d reviews", len(f.host.asked))
	}
	f.run("r2", "echo '{}' > .mcp.json")
	if len(f.host.asked) != 1 {
		t.Errorf("a sensitive path was applied unasked in acceptEdits")
	}
}

func TestPlanModeAppliesNothing(t *testing.T) {
	f := newCapture(t, protocol.ModePlan, reviewTree)
	res := f.run("r1", editTwo+" && echo obj > build/new.o")
	if !res.IsError || !strings.Contains(res.Content, "Plan mode") {
		t.Errorf("result: %s", res.Content)
	}
	f.expectTrees("in plan mode", f.before)
	if res := f.run("r2", "cat main.go >/dev/null"); res.IsError || res.Content != "" {
		t.Errorf("a command that changed nothing: %+v", res)
	}
}

func TestDryRunStages(t *testing.T) {
	f := newCapture(t, protocol.ModeDryRun, reviewTree)
	res := f.run("r1", editTwo)
	f.expectTrees("in dry run", f.before)
	entries, err := f.st.Staging.List()
	if err != nil || len(entries) != 1 || len(entries[0].Changes) != 2 {
		t.Fatalf("staged: %+v, %v", entries, err)
	}
	if !strings.Contains(res.Content, "staged as "+entries[0].ID) {
		t.Errorf("result: %s", res.Content)
	}
}

// A file the user changed while the command ran is left as the user left
// it; the command's version is kept in the checkpoint and named.
func TestUserEditDuringTheCommandIsKept(t *testing.T) {
	for _, how := range []string{"saved", "unsaved"} {
		t.Run(how, func(t *testing.T) {
			f := newCapture(t, protocol.ModeBypass, reviewTree)
			set, err := overlay.Allocate(project.StateDir(f.env.Workspace.Primary()), f.folders)
			if err != nil {
				t.Fatal(err)
			}
			defer set.Remove()
			overlaytest.Run(t, set, editTwo)
			mainGo := filepath.Join(f.folders[0], "main.go")
			if how == "saved" {
				if err := os.WriteFile(mainGo, []byte("package main // the user's\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				f.env.Dirty.Set([]string{mainGo})
			}
			userVersion := readFile(t, f.folders[0], "main.go")
			c := &Call{Name: "shell", RequestID: "r1", Budget: NewBudget(0, 0), Session: NewSession(), Env: f.env}
			res, err := c.TakeIn(context.Background(), set, editTwo)
			if err != nil {
				t.Fatal(err)
			}
			if readFile(t, f.folders[0], "main.go") != userVersion {
				t.Error("the user's version was overwritten")
			}
			if !strings.Contains(readFile(t, f.folders[0], "util.go"), "// more") {
				t.Error("the other file was not applied")
			}
			if !strings.Contains(res.Content, "Not applied: main.go") || !strings.Contains(res.Content, "kept in this request's undo checkpoint") {
				t.Errorf("result: %s", res.Content)
			}
			show, err := f.st.Undo.Show("")
			if err != nil || !strings.Contains(show, "+\tprintln(\"ONE\")") {
				t.Errorf("the checkpoint does not hold the command's version: %v\n%s", err, show)
			}
		})
	}
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

func TestTenThousandFilesAndALargeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 files and 100 MB")
	}
	f := newCapture(t, protocol.ModeBypass, map[string]string{"big.bin": "small at first\n"})
	script := "mkdir many && cd many && seq 1 10000 | while read i; do echo \"$i\" > \"f$i\"; done && cd .. && head -c 104857601 /dev/urandom > big.bin && head -c 3000000 /dev/urandom > new.bin"
	// The same bytes for the straight run: the random files are copied out
	// of the overlay's result, so compare against the upper layer instead.
	res := f.run("r1", script)
	if res.IsError {
		t.Fatal(res.Content)
	}
	tree := overlaytest.Tree(t, f.folders[0])
	n := 0
	for p := range tree {
		if strings.HasPrefix(p, "many/f") {
			n++
		}
	}
	if n != 10000 || tree["many/f9999"] == "" || readFile(t, f.folders[0], "many/f9999") != "9999\n" {
		t.Fatalf("%d files taken in", n)
	}
	if fi, err := os.Stat(filepath.Join(f.folders[0], "big.bin")); err != nil || fi.Size() != 104857601 {
		t.Fatalf("big.bin: %v %v", fi, err)
	}
	f.undo()
	f.expectTrees("after undo", f.before)
}

// A layer on another file system is taken in by copying: the same result,
// and the same undo.
func TestCopiedLayer(t *testing.T) {
	trees := []map[string]string{matrixTree}
	script := "printf 'ALPHA\\n' > a.txt && mkdir -p n && echo 1 > n/one && chmod +x run.sh && rm b.txt && ln -sfn run.sh link"
	f := newCapture(t, protocol.ModeBypass, trees...)
	want := f.expected(trees, script)
	set, err := overlay.Allocate(project.StateDir(f.env.Workspace.Primary()), f.folders)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Remove()
	overlaytest.Run(t, set, script)
	set.Layers[0].Copy = true
	c := &Call{Name: "shell", RequestID: "r1", Budget: NewBudget(0, 0), Session: NewSession(), Env: f.env}
	if res, err := c.TakeIn(context.Background(), set, script); err != nil || res.IsError {
		t.Fatalf("%v: %s", err, res.Content)
	}
	f.expectTrees("copied in", want)
	// Copied, not moved: the layer still holds the command's files.
	if _, err := os.Stat(filepath.Join(set.Layers[0].Upper, "a.txt")); err != nil {
		t.Errorf("the upper file was moved, not copied: %v", err)
	}
	f.undo()
	f.expectTrees("after undo", f.before)
}

func TestGitPaths(t *testing.T) {
	for _, tc := range []struct {
		rel          string
		inGit, risky bool
	}{
		{"main.go", false, false},
		{".git", true, false},
		{".git/HEAD", true, false},
		{".git/objects/ab/cdef", true, false},
		{".git/config", true, true},
		{".git/hooks/pre-commit", true, true},
		{".git/hooks/pre-commit.sample", true, false},
		{"vendor/x/.git/hooks/post-checkout", true, true},
		{"vendor/x/.git/config.worktree", true, true},
		{".git/modules/sub/hooks/pre-push", true, true},
		{".git/modules/sub/config", true, true},
		{".git/modules/sub/objects/aa/bb", true, false},
		{"docs/.github/x", false, false},
	} {
		inGit, risky := gitPath(tc.rel)
		if inGit != tc.inGit || risky != tc.risky {
			t.Errorf("gitPath(%q) = %v, %v; want %v, %v", tc.rel, inGit, risky, tc.inGit, tc.risky)
		}
	}
}

func TestNotCapturedSaysWhy(t *testing.T) {
	msg := NotCaptured("landlock", "user namespaces are not available here")
	for _, want := range []string{"sandbox level: landlock", "user namespaces are not available here", "not in this request's undo checkpoint", "Undo Last Request cannot put it back"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}
