package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	cleanupBinary()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// isolateXDG points every XDG folder at a temporary one, so no test
// touches the real home folder.
func isolateXDG(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Cleanup(xdg.Reload) // runs after t.Setenv has restored the variables
	// XDG_CACHE_HOME is left alone: it holds Go's build cache, which the
	// binary tests need warm.
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, strings.ToLower(v)))
	}
	reloadXDG()
	return home
}

// reloadXDG makes the xdg package read the variables again after a test
// changed them.
func reloadXDG() { xdg.Reload() }

// terminal is the user at the keyboard in a test run.
type terminal struct {
	// present is false for a run with no terminal at all (CI).
	present bool
	// typed is what the user will type, consumed across prompts.
	typed  string
	shown  bytes.Buffer // what the prompts wrote
	opened int          // how many times a prompt opened the terminal
}

func noTerminal() *terminal         { return &terminal{} }
func typing(lines string) *terminal { return &terminal{typed: lines, present: true} }

func (tm *terminal) open() (io.ReadWriteCloser, error) {
	tm.opened++
	if !tm.present {
		return nil, fmt.Errorf("%w (test: detached from any terminal)", errNoTerminal)
	}
	return ttySession{tm}, nil
}

// ttySession is one prompt's use of the terminal.
type ttySession struct{ tm *terminal }

// Read hands out at most one line, as a terminal in canonical mode does,
// so a prompt never swallows the answer meant for the next one.
func (s ttySession) Read(p []byte) (int, error) {
	rest := s.tm.typed
	if rest == "" {
		return 0, io.EOF
	}
	n := len(rest)
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		n = i + 1
	}
	n = copy(p, rest[:n])
	s.tm.typed = rest[n:]
	return n, nil
}
func (s ttySession) Write(p []byte) (int, error) { return s.tm.shown.Write(p) }
func (s ttySession) Close() error                { return nil }

// cliRun is the outcome of one in-process command.
type cliRun struct {
	code           int
	stdout, stderr string
}

// runCallIn runs `tether call` in-process in workspace dir.
func runCallIn(t *testing.T, dir string, tm *terminal, stdin string, args ...string) cliRun {
	t.Helper()
	isolateXDG(t)
	var out, errb bytes.Buffer
	cio := cmdIO{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, terminal: tm.open}
	full := append([]string{"--workspace", dir}, args...)
	code := callMain(context.Background(), full, cio)
	return cliRun{code, out.String(), errb.String()}
}

// workspaceWith makes a workspace holding one file.
func workspaceWith(t *testing.T, name, content string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func fileContent(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }
