//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/sandbox"
)

// The sandbox as a user meets it from a terminal: tether call shell, the
// --sandbox levels, tether doctor, tether allow.

func needFullSandbox(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if st := sandbox.Probe(ctx, ""); st.Level != sandbox.LevelFull {
		t.Skipf("no full sandbox here: %s", st.Why)
	}
}

// shellJSON is the arguments of one shell call.
func shellJSON(t *testing.T, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBinaryCallShellIsConfinedAtEachLevel(t *testing.T) {
	needFullSandbox(t)
	outside := t.TempDir()
	for _, tt := range []struct {
		flag      string
		note      string
		writesOut bool
	}{
		{"auto", "", false},
		{"landlock", "sandbox level landlock, not full", false},
		{"off", "no sandbox: the shellSandbox setting is off", true},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(outside, "from-"+tt.flag)
			r := runDetached(t, dir, "call", "--yes", "--sandbox", tt.flag, "shell", shellJSON(t, map[string]any{"command": "touch inside; touch " + target + "; true"}))
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "inside")); err != nil {
				t.Errorf("the command did not write inside the workspace:\n%s", r.stdout)
			}
			_, err := os.Stat(target)
			if wrote := err == nil; wrote != tt.writesOut {
				t.Errorf("wrote outside: %v, want %v\n%s", wrote, tt.writesOut, r.stdout)
			}
			if tt.note != "" && !strings.Contains(r.stdout, tt.note) {
				t.Errorf("the result does not name the level (%q):\n%s", tt.note, r.stdout)
			}
			if tt.note == "" && strings.Contains(r.stdout, "sandbox") {
				t.Errorf("the full level says something of itself:\n%s", r.stdout)
			}
		})
	}
}

func TestBinaryCallShellOutsideTheSandboxNeedsAPerson(t *testing.T) {
	needFullSandbox(t)
	dir := t.TempDir()
	// Without a terminal and without --yes, sandbox: false is refused.
	r := runDetached(t, dir, "call", "shell", shellJSON(t, map[string]any{"command": "true", "sandbox": false}))
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "approval") {
		t.Errorf("sandbox: false without anyone to ask: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// --yes is the person's answer; the full command line is shown.
	r = runDetached(t, dir, "call", "--yes", "shell", shellJSON(t, map[string]any{"command": "echo outside", "sandbox": false}))
	if r.code != 0 || !strings.Contains(r.stdout, "outside the sandbox, with all of the user's rights") || !strings.Contains(r.stderr, "outside the sandbox: echo outside") {
		t.Errorf("sandbox: false with --yes: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestBinaryCallRefusesABadSandboxFlag(t *testing.T) {
	r := runDetached(t, t.TempDir(), "call", "--sandbox", "sometimes", "shell", `{"command":"true"}`)
	if r.code != 2 || !strings.Contains(r.stderr, "--sandbox") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = runDetached(t, t.TempDir(), "call", "--writable", "relative/dir", "shell", `{"command":"true"}`)
	if r.code != 2 || !strings.Contains(r.stderr, "--writable") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// --writable lets a sandboxed command write one more folder.
func TestBinaryCallWritablePath(t *testing.T) {
	needFullSandbox(t)
	extra := t.TempDir()
	r := runDetached(t, t.TempDir(), "call", "--yes", "--writable", extra, "shell", shellJSON(t, map[string]any{"command": "touch " + extra + "/made"}))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(extra, "made")); err != nil {
		t.Errorf("the writable path was not written:\n%s", r.stdout)
	}
}

func TestBinaryDoctorNamesTheSandboxLevel(t *testing.T) {
	needFullSandbox(t)
	for flag, want := range map[string]string{
		"auto":     `(?m)^ok\s+sandbox\s+full \(Landlock ABI \d+\): namespaces`,
		"landlock": `(?m)^ok\s+sandbox\s+landlock \(Landlock ABI \d+\), as shellSandbox asks \(this machine passes full\)`,
		"off":      `(?m)^warn\s+sandbox\s+none: shellSandbox is off`,
	} {
		r := runDetached(t, t.TempDir(), "doctor", "--sandbox", flag)
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("doctor --sandbox %s: want %s in\n%s", flag, want, r.stdout)
		}
	}
}

// Where user namespaces are refused (here: a user namespace whose own
// limit of nested ones is 0, as the sysctl does for the whole machine),
// auto falls back to Landlock, and doctor says why and what to do.
func TestBinaryDoctorExplainsAFallback(t *testing.T) {
	needFullSandbox(t)
	bin := tetherBinary(t)
	home := isolateXDG(t)
	script := `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" doctor`
	r := runProgram(t, t.TempDir(), append(os.Environ(), "HOME="+home), "unshare", "-U", "-r", "sh", "-c", script, bin)
	if !regexp.MustCompile(`(?m)^warn\s+sandbox\s+landlock \(Landlock ABI \d+\): the full sandbox failed its probe: the kernel refused a new user namespace`).MatchString(r.stdout) {
		t.Fatalf("doctor in a user namespace without nested ones:\n%s%s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "To get the full sandbox:") || !strings.Contains(r.stdout, "user.max_user_namespaces") {
		t.Errorf("no advice:\n%s", r.stdout)
	}
	// And tether call runs at the landlock level there, and says so.
	dir := t.TempDir()
	r = runProgram(t, dir, append(os.Environ(), "HOME="+home), "unshare", "-U", "-r", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" call --yes shell '{"command":"touch inside"}'`, bin)
	if !strings.Contains(r.stdout, "sandbox level landlock, not full (the full sandbox failed its probe") {
		t.Errorf("tether call after the fallback:\n%s%s", r.stdout, r.stderr)
	}
}

func TestBinaryAllowListsNumberedAndRemovesOne(t *testing.T) {
	needFullSandbox(t)
	dir := t.TempDir()
	// Answers go through the terminal: "a" saves the rules. At the
	// landlock level a command asks before it runs (no overlay takes its
	// writes in), which is where rules count.
	tm := typing("a\n")
	r := runCallIn(t, dir, tm, "", "--sandbox", "landlock", "shell", shellJSON(t, map[string]any{"command": "git init -q . && git status"}))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var out, errb strings.Builder
	code := allowCmd.main([]string{"--workspace", dir}, cmdIO{stdout: &out, stderr: &errb})
	if code != 0 || !regexp.MustCompile(`(?m)^  1  always run git init  \(since `).MatchString(out.String()) ||
		!regexp.MustCompile(`(?m)^  2  always run git status  \(since `).MatchString(out.String()) ||
		!strings.Contains(out.String(), "tether allow --remove N") {
		t.Fatalf("tether allow:\n%s%s", out.String(), errb.String())
	}
	out.Reset()
	if code := allowCmd.main([]string{"--workspace", dir, "--remove", "1"}, cmdIO{stdout: &out, stderr: &errb}); code != 0 || !strings.Contains(out.String(), "Forgot: always run git init") {
		t.Fatalf("--remove 1: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	allowCmd.main([]string{"--workspace", dir}, cmdIO{stdout: &out, stderr: &errb})
	if strings.Contains(out.String(), "git init") || !strings.Contains(out.String(), "1  always run git status") {
		t.Errorf("after removing one:\n%s", out.String())
	}
	errb.Reset()
	if code := allowCmd.main([]string{"--workspace", dir, "--remove", "7"}, cmdIO{stdout: &out, stderr: &errb}); code != 2 || !strings.Contains(errb.String(), "no answer with that number") {
		t.Errorf("--remove 7: exit %d, %s", code, errb.String())
	}
}

// tether call shell: a command that edits two files is not asked before
// it runs; its changes are shown and asked once, after; "y" applies both
// and tether undo puts both back.
func TestCallShellChangesAreReviewedAfterAndUndone(t *testing.T) {
	needFullSandbox(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := errors.Join(writeFile(a, "alpha\n"), writeFile(b, "beta\n")); err != nil {
		t.Fatal(err)
	}
	tm := typing("y\n")
	r := runCallIn(t, dir, tm, "", "shell", shellJSON(t, map[string]any{"command": "sed -i 's/a$/A/' a.txt b.txt && echo edited"}))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(tm.shown.String(), "Allow? "); n != 1 {
		t.Errorf("asked %d times, want once (after the command); terminal:\n%s", n, tm.shown.String())
	}
	if !strings.Contains(r.stderr, "+alphA") || !strings.Contains(r.stderr, "+betA") {
		t.Errorf("the diff of both files was not shown:\n%s", r.stderr)
	}
	if fileContent(t, a) != "alphA\n" || fileContent(t, b) != "betA\n" || !strings.Contains(r.stdout, "edited") {
		t.Fatalf("not applied:\n%s", r.stdout)
	}
	if u := runIn(t, undoCmd.main, dir); u.code != 0 {
		t.Fatalf("undo: %d %s %s", u.code, u.stdout, u.stderr)
	}
	if fileContent(t, a) != "alpha\n" || fileContent(t, b) != "beta\n" {
		t.Errorf("undo did not put both back: %q %q", fileContent(t, a), fileContent(t, b))
	}
}

// runProgram runs a program in dir with env, in a session of its own.
func runProgram(t *testing.T, dir string, env []string, name string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliRun{code, out.String(), errb.String()}
}
