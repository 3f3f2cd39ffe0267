package logging

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
)

// useStateHome points the XDG state folder at a temp dir for one test.
func useStateHome(t *testing.T, dir string) {
	t.Setenv("XDG_STATE_HOME", dir)
	xdg.Reload()
	t.Cleanup(xdg.Reload)
}

func readLog(t *testing.T, state string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, "tether", "log", "tether.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenWritesStderrAndFile(t *testing.T) {
	state := t.TempDir()
	useStateHome(t, state)
	t.Setenv(EnvLevel, "")
	var stderr bytes.Buffer
	l := Open(&stderr)
	l.Logger().Info("hello", "k", "v")
	l.Logger().Debug("hidden at info")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"stderr": stderr.String(), "file": readLog(t, state)} {
		if !strings.Contains(got, "msg=hello k=v") {
			t.Errorf("%s = %q, want the info line", name, got)
		}
		if strings.Contains(got, "hidden") {
			t.Errorf("%s has a debug line at level info: %q", name, got)
		}
	}
	fi, err := os.Stat(filepath.Join(state, "tether", "log", "tether.log"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("log file mode %v, want 0600", perm)
	}
}

func TestLevelFromEnvironment(t *testing.T) {
	for _, tc := range []struct {
		env       string
		want      slog.Level
		wantWarn  bool
		debugSeen bool
	}{
		{"debug", slog.LevelDebug, false, true},
		{"ERROR", slog.LevelError, false, false},
		{"loud", slog.LevelInfo, true, false},
		{"", slog.LevelInfo, false, false},
	} {
		t.Run(tc.env, func(t *testing.T) {
			useStateHome(t, t.TempDir())
			t.Setenv(EnvLevel, tc.env)
			var stderr bytes.Buffer
			l := Open(&stderr)
			defer l.Close()
			if l.Level() != tc.want {
				t.Errorf("level %v, want %v", l.Level(), tc.want)
			}
			if warned := strings.Contains(stderr.String(), "ignoring "+EnvLevel); warned != tc.wantWarn {
				t.Errorf("warning printed = %v, want %v: %q", warned, tc.wantWarn, stderr.String())
			}
			l.Logger().Debug("dbg")
			if seen := strings.Contains(stderr.String(), "msg=dbg"); seen != tc.debugSeen {
				t.Errorf("debug line seen = %v, want %v", seen, tc.debugSeen)
			}
		})
	}
}

func TestSetLevel(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, slog.LevelInfo)
	l.Logger().Debug("before")
	if err := l.SetLevel("debug"); err != nil {
		t.Fatal(err)
	}
	l.Logger().Debug("after")
	if strings.Contains(buf.String(), "before") || !strings.Contains(buf.String(), "after") {
		t.Fatalf("log = %q, want only the line logged after SetLevel(debug)", buf.String())
	}
	err := l.SetLevel("verbose")
	if err == nil || !strings.Contains(err.Error(), "debug, info, warn, error") {
		t.Fatalf("SetLevel(verbose) = %v, want an error naming the levels", err)
	}
	if l.Level() != slog.LevelDebug {
		t.Fatalf("a bad name changed the level to %v", l.Level())
	}
}

func TestUnwritableStateFolderIsNotFatal(t *testing.T) {
	// A regular file where the state folder should be: no log file can be made.
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	useStateHome(t, blocker)
	var stderr bytes.Buffer
	l := Open(&stderr)
	defer l.Close()
	l.Logger().Info("still logging")
	got := stderr.String()
	if !strings.Contains(got, "stderr only") || !strings.Contains(got, "still logging") {
		t.Fatalf("stderr = %q, want a warning and the line", got)
	}
}

func TestLargeLogIsMovedAside(t *testing.T) {
	state := t.TempDir()
	useStateHome(t, state)
	dir := filepath.Join(state, "tether", "log")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := bytes.Repeat([]byte("x"), rotateBytes+1)
	if err := os.WriteFile(filepath.Join(dir, "tether.log"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	l := Open(&bytes.Buffer{})
	l.Logger().Info("fresh")
	l.Close()
	if got := readLog(t, state); strings.Contains(got, "xxx") || !strings.Contains(got, "fresh") {
		t.Fatalf("new log = %.80q, want only the fresh line", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, "tether.log.1")); err != nil || fi.Size() != int64(len(old)) {
		t.Fatalf("old log not kept as tether.log.1: %v", err)
	}
}

func TestDiscardDropsEverything(t *testing.T) {
	l := Discard()
	if l.Logger().Enabled(t.Context(), slog.LevelError) {
		t.Fatal("Discard logs errors")
	}
}

// OpenQuiet keeps stderr to errors unless TETHER_LOG_LEVEL asks for more;
// the file gets what the level in force lets through.
func TestOpenQuiet(t *testing.T) {
	for _, tc := range []struct {
		env        string
		wantStderr bool // the info line on stderr
	}{{"", false}, {"debug", true}} {
		state := t.TempDir()
		useStateHome(t, state)
		t.Setenv(EnvLevel, tc.env)
		var stderr bytes.Buffer
		l := OpenQuiet(&stderr, slog.LevelError)
		l.Logger().Info("routine")
		l.Logger().Error("broken")
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr.String(), "routine") != tc.wantStderr || !strings.Contains(stderr.String(), "broken") {
			t.Errorf("TETHER_LOG_LEVEL=%q: stderr %q", tc.env, stderr.String())
		}
		if file := readLog(t, state); !strings.Contains(file, "routine") || !strings.Contains(file, "broken") {
			t.Errorf("TETHER_LOG_LEVEL=%q: the file lacks a line: %q", tc.env, file)
		}
	}
}
