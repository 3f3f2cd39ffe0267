package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runIn runs one of the project commands in-process. XDG must already be
// isolated (runCallIn does it) so the command sees the same stores.
func runIn(t *testing.T, main func([]string, cmdIO) int, dir string, args ...string) cliRun {
	t.Helper()
	var out, errb bytes.Buffer
	cio := cmdIO{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, terminal: noTerminal().open}
	code := main(append([]string{"--workspace", dir}, args...), cio)
	return cliRun{code, out.String(), errb.String()}
}

func TestUndoAndCheckpointsCommands(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	if r := runCallIn(t, dir, noTerminal(), "", append([]string{"--yes"}, editAnswer...)...); r.code != 0 {
		t.Fatalf("call: %d %s", r.code, r.stderr)
	}
	if fileContent(t, path) == original {
		t.Fatal("the edit did not happen")
	}
	list := runIn(t, checkpointsCmd.main, dir)
	if list.code != 0 || !strings.Contains(list.stdout, "edited demo.go") {
		t.Fatalf("checkpoints: %d %q %q", list.code, list.stdout, list.stderr)
	}
	id := strings.Fields(list.stdout)[0]
	show := runIn(t, checkpointsCmd.main, dir, id)
	if show.code != 0 || !strings.Contains(show.stdout, "return 41") {
		t.Fatalf("checkpoints %s: %q", id, show.stdout)
	}
	undone := runIn(t, undoCmd.main, dir)
	if undone.code != 0 || !strings.Contains(undone.stdout, "restored  demo.go") {
		t.Fatalf("undo: %d %q %q", undone.code, undone.stdout, undone.stderr)
	}
	if fileContent(t, path) != original {
		t.Fatal("undo did not restore the file")
	}
	if again := runIn(t, undoCmd.main, dir, id); again.code != 1 || again.stderr == "" {
		t.Fatalf("undoing twice: %d %q", again.code, again.stderr)
	}
	if list := runIn(t, checkpointsCmd.main, dir); !strings.Contains(list.stdout, "(undone)") {
		t.Fatalf("an undone checkpoint must stay listed: %q", list.stdout)
	}
}

func TestUndoReportsConflicts(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	runCallIn(t, dir, noTerminal(), "", append([]string{"--yes"}, editAnswer...)...)
	if err := writeFile(path, "the user's own version\n"); err != nil {
		t.Fatal(err)
	}
	r := runIn(t, undoCmd.main, dir)
	if r.code != 0 || !strings.Contains(r.stdout, "left alone demo.go") {
		t.Fatalf("undo with a conflict: %d %q", r.code, r.stdout)
	}
	if fileContent(t, path) != "the user's own version\n" {
		t.Fatal("undo overwrote the user's change")
	}
}

func TestStagedCommands(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	runCallIn(t, dir, noTerminal(), "", append([]string{"--mode", "dryRun"}, editAnswer...)...)
	list := runIn(t, stagedCmd.main, dir)
	if list.code != 0 || !strings.Contains(list.stdout, "demo.go") {
		t.Fatalf("staged: %q %q", list.stdout, list.stderr)
	}
	id := strings.Fields(list.stdout)[0]
	if show := runIn(t, stagedCmd.main, dir, "show", id); !strings.Contains(show.stdout, "+func Answer() int { return 42 }") {
		t.Fatalf("staged show: %q", show.stdout)
	}
	if r := runIn(t, stagedCmd.main, dir, "apply"); r.code != 0 || !strings.Contains(r.stdout, "applied "+id) || !strings.Contains(r.stdout, "tether undo") {
		t.Fatalf("staged apply: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(fileContent(t, path), "return 42") {
		t.Fatal("apply did not write")
	}
	if r := runIn(t, stagedCmd.main, dir); !strings.Contains(r.stdout, "Nothing is staged") {
		t.Fatalf("after apply: %q", r.stdout)
	}
	if r := runIn(t, stagedCmd.main, dir, "frobnicate"); r.code != 2 {
		t.Fatalf("unknown action: %d", r.code)
	}
}

func TestAllowAndTrustCommands(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	isolateXDG(t)
	if r := runIn(t, allowCmd.main, dir); r.code != 0 || !strings.Contains(r.stdout, "No saved") {
		t.Fatalf("allow: %q", r.stdout)
	}
	// "a" at the terminal saves an always answer for edits.
	if r := runCallIn(t, dir, typing("a\n"), "", editAnswer...); r.code != 0 {
		t.Fatalf("call: %d %s", r.code, r.stderr)
	}
	if r := runIn(t, allowCmd.main, dir); !strings.Contains(r.stdout, "always change files inside the workspace") {
		t.Fatalf("allow after 'a': %q", r.stdout)
	}
	if r := runIn(t, allowCmd.main, dir, "--reset"); r.code != 0 || !strings.Contains(r.stdout, "Forgot 1") {
		t.Fatalf("allow --reset: %q", r.stdout)
	}
	if r := runIn(t, trustCmd.main, dir); r.code != 0 || !strings.Contains(r.stdout, "is trusted") {
		t.Fatalf("trust: %q %q", r.stdout, r.stderr)
	}
	if r := runIn(t, trustCmd.main, dir, "--off"); r.code != 0 || !strings.Contains(r.stdout, "no longer trusted") {
		t.Fatalf("trust --off: %q", r.stdout)
	}
}

// "a" at the terminal for a read outside the workspace saves that folder:
// the next file there is read without a prompt, a sibling whose name
// starts the same is asked about, and `tether allow` lists the folder.
func TestCallAlwaysForAFolderOutside(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(root, "lib")
	for _, p := range []string{filepath.Join(lib, "a.h"), filepath.Join(lib, "b.h"), filepath.Join(root, "lib-evil", "c.h")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeFile(p, "x\n"); err != nil {
			t.Fatal(err)
		}
	}
	arg := func(p string) string { return `{"path":` + strconv.Quote(p) + `}` }
	tm := typing("a\nn\n")
	r := runCallIn(t, dir, tm, "", "read_file", arg(filepath.Join(lib, "a.h")), "read_file", arg(filepath.Join(lib, "b.h")), "read_file", arg(filepath.Join(root, "lib-evil", "c.h")))
	if n := strings.Count(tm.shown.String(), "Allow? "); n != 2 {
		t.Fatalf("asked %d times, want 2 (a.h, then lib-evil); terminal:\n%s\nstderr:\n%s", n, tm.shown.String(), r.stderr)
	}
	if !strings.Contains(r.stdout+r.stderr, "declined") {
		t.Errorf("lib-evil was not refused:\n%s%s", r.stdout, r.stderr)
	}
	if r := runIn(t, allowCmd.main, dir); !strings.Contains(r.stdout, "always read in "+lib+" ") {
		t.Fatalf("allow: %q", r.stdout)
	}
}
