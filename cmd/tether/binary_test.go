//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The binary is built once, with a version stamped in as scripts/build.sh
// does, for the tests that must see the real process: os.Exit codes and a
// process with no controlling terminal, as in CI.
var (
	binaryOnce sync.Once
	binaryDir  string
	binaryPath string
	binaryErr  error
)

const stampedVersion = "v9.9.9-test"

func tetherBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			binaryErr = err
			return
		}
		if binaryDir, binaryErr = os.MkdirTemp("", "tether-bin-"); binaryErr != nil {
			return
		}
		binaryPath = filepath.Join(binaryDir, "tether")
		out, err := exec.Command(goTool, "build", "-ldflags", "-X main.version="+stampedVersion, "-o", binaryPath, ".").CombinedOutput()
		if err != nil {
			binaryErr = &buildError{err, string(out)}
		}
	})
	if binaryErr != nil {
		t.Fatalf("building tether: %v", binaryErr)
	}
	return binaryPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func cleanupBinary() {
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
}

// runDetached runs the binary in a new session: no controlling terminal,
// stdin at /dev/null, the way CI runs it.
func runDetached(t *testing.T, dir string, args ...string) cliRun {
	t.Helper()
	bin := tetherBinary(t) // before isolateXDG, with the build cache where go expects it
	home := isolateXDG(t)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home)
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

func TestBinaryVersionIsStamped(t *testing.T) {
	r := runDetached(t, t.TempDir(), "version")
	want := regexp.MustCompile(`^tether ` + regexp.QuoteMeta(stampedVersion) + ` \(go\S+ \w+/\w+\)\n$`)
	if r.code != 0 || !want.MatchString(r.stdout) {
		t.Errorf("version: exit %d, stdout %q; want %v", r.code, r.stdout, want)
	}
}

func TestBinaryRefusesEditWithNoTerminal(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	r := runDetached(t, dir, append([]string{"call"}, editAnswer...)...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := fileContent(t, path); got != original {
		t.Errorf("file changed with nobody to approve it: %q", got)
	}
	if !strings.Contains(r.stderr, "--yes") || !strings.Contains(r.stderr, "--mode acceptEdits") {
		t.Errorf("the refusal does not give the headless advice:\n%s", r.stderr)
	}
}

func TestBinaryExitCodes(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"call", "read_file", `{"path":"demo.go"}`}, 0},
		{[]string{"call", "read_file", `{"path":"missing.go"}`}, 1},
		{[]string{"call", "read_file", `{path}`}, 2},
		{[]string{"no-such-command"}, 2},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if r := runDetached(t, dir, tt.args...); r.code != tt.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tt.want, r.stderr)
			}
		})
	}
}

// An empty --workspace (an unset variable in a client's configuration) or
// one with no value is an error that names the flag, never the folder
// tether was started in.
func TestBinaryRefusesAnEmptyWorkspace(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mcp", "--workspace", ""},
		{"mcp", "--workspace", "  "},
		{"mcp", "--workspace"},
		{"mcp", "--workspace", dir, "--workspace", ""},
		{"mcp", "--print-config", "vscode", "--workspace", ""},
		{"call", "--workspace", "", "read_file", `{"path":"a"}`},
		{"checkpoints", "--workspace", ""},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runDetached(t, dir, args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2 (usage error); stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			first, _, _ := strings.Cut(r.stderr, "\n")
			if !strings.Contains(first, "-workspace") || r.stdout != "" {
				t.Errorf("the error's first line does not name --workspace, or something went to stdout:\nstdout %q\nstderr %s", r.stdout, r.stderr)
			}
		})
	}
}
