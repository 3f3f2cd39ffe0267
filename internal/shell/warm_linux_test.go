package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/sandbox"
)

// waitFor polls until cond holds, or fails the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A manager's second sandboxed command of a kind runs in a sandbox started
// ahead, and behaves as the first: output, exit code, signal, leftovers,
// its own environment and folder, nothing outside written.
func TestSandboxStartedAheadRunsTheNextCommand(t *testing.T) {
	for _, level := range sandboxLevels {
		t.Run(string(level), func(t *testing.T) {
			m := openJobs(t)
			dir := t.TempDir()
			s := confined(t, level, dir)
			run := func(command string, env ...string) (Outcome, string) {
				t.Helper()
				var out syncBuffer
				o, err := m.Run(context.Background(), Spec{Command: command, Dir: dir, Sandbox: s, Env: env, Grace: 100 * time.Millisecond}, &out)
				if err != nil {
					t.Fatal(err)
				}
				return o, out.String()
			}
			if o, out := run("echo first"); o.ExitCode != 0 || strings.TrimSpace(out) != "first" {
				t.Fatalf("cold: %+v %q", o, out)
			}
			waitFor(t, "a sandbox started ahead", func() bool { return len(sandboxInits()) == 1 })
			ahead := sandboxInits()[0]

			outside := filepath.Join(t.TempDir(), "escaped")
			o, out := run("echo $TETHER_TEST_VAR in $PWD; touch "+outside+"; exit 7", "TETHER_TEST_VAR=given")
			if o.ExitCode != 7 || !strings.Contains(out, "given in "+dir) || o.Sandbox != level {
				t.Errorf("ahead: %+v %q", o, out)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("a command in a sandbox started ahead wrote outside the workspace")
			}
			if alive(ahead) {
				t.Errorf("the sandbox started ahead (%d) outlived its command", ahead)
			}
			waitFor(t, "the next sandbox started ahead", func() bool {
				inits := sandboxInits()
				return len(inits) == 1 && inits[0] != ahead
			})
			o, _ = run("kill -KILL $$")
			if o.Signal != "SIGKILL" {
				t.Errorf("a signal through a sandbox started ahead: %+v", o)
			}
			a := tag()
			o, _ = run("env -i setsid sleep " + a + " & echo started")
			if o.Leftovers == 0 || len(running("sleep", a)) > 0 {
				t.Errorf("leftovers through a sandbox started ahead: %+v, still running %v", o, running("sleep", a))
			}
		})
	}
}

// A sandbox started ahead for a folder that was replaced since is not
// used: the command runs in the folder as it is now.
func TestSandboxStartedAheadForAReplacedFolderIsDropped(t *testing.T) {
	m := openJobs(t)
	dir := t.TempDir()
	s := confined(t, sandbox.LevelFull, dir)
	if o, err := m.Run(context.Background(), Spec{Command: "true", Dir: dir, Sandbox: s}, &syncBuffer{}); err != nil || o.ExitCode != 0 {
		t.Fatalf("%+v %v", o, err)
	}
	waitFor(t, "a sandbox started ahead", func() bool { return len(sandboxInits()) == 1 })
	ahead := sandboxInits()[0]
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "now.txt"), []byte("the new folder\n"), 0o644)
	var out syncBuffer
	o, err := m.Run(context.Background(), Spec{Command: "cat now.txt", Dir: dir, Sandbox: s}, &out)
	if err != nil || o.ExitCode != 0 || !strings.Contains(out.String(), "the new folder") {
		t.Errorf("after the folder was replaced: %+v %v %q", o, err, out.String())
	}
	if alive(ahead) {
		t.Error("the stale sandbox started ahead was left running")
	}
}

// Closing the manager ends the sandboxes started ahead.
func TestCloseEndsSandboxesStartedAhead(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	m, err := OpenJobs()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := confined(t, sandbox.LevelFull, dir)
	if _, err := m.Run(context.Background(), Spec{Command: "true", Dir: dir, Sandbox: s}, &syncBuffer{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a sandbox started ahead", func() bool { return len(sandboxInits()) == 1 })
	ahead := sandboxInits()[0]
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(ahead) || len(sandboxInits()) != 0 {
		t.Errorf("sandboxes started ahead outlived Close: %v", sandboxInits())
	}
}

// A command's own overlay (Spec.Overlays): its writes land in its upper
// folder, cold or in a sandbox started ahead, and the folder is left as
// it was.
func TestCommandsOwnOverlay(t *testing.T) {
	m := openJobs(t)
	dir := t.TempDir()
	s := confined(t, sandbox.LevelFull, dir)
	real, _ := filepath.EvalSymlinks(dir)
	os.WriteFile(filepath.Join(real, "a.txt"), []byte("before\n"), 0o644)
	for i, how := range []string{"cold", "ahead"} {
		layers := t.TempDir()
		upper, work := filepath.Join(layers, "upper"), filepath.Join(layers, "work")
		os.Mkdir(upper, 0o755)
		os.Mkdir(work, 0o755)
		if i == 1 {
			waitFor(t, "a sandbox started ahead", func() bool { return len(sandboxInits()) == 1 })
		}
		var out syncBuffer
		o, err := m.Run(context.Background(), Spec{Command: "echo " + how + " > a.txt; cat a.txt", Dir: real, Sandbox: s,
			Overlays: []sandbox.Folder{{Path: real, Upper: upper, Work: work}}}, &out)
		if err != nil || o.ExitCode != 0 || strings.TrimSpace(out.String()) != how {
			t.Fatalf("%s: %+v %v %q", how, o, err, out.String())
		}
		if got, _ := os.ReadFile(filepath.Join(upper, "a.txt")); string(got) != how+"\n" {
			t.Errorf("%s: the upper folder holds %q", how, got)
		}
		if got, _ := os.ReadFile(filepath.Join(real, "a.txt")); string(got) != "before\n" {
			t.Errorf("%s: the folder itself changed: %q", how, got)
		}
	}
}
