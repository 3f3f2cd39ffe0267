//go:build unix

package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestRunReportsOutputAndExitCode(t *testing.T) {
	tests := []struct {
		name    string
		command string
		out     string
		code    int
		signal  string
	}{
		{"stdout", "echo hi", "hi\n", 0, ""},
		{"stdout and stderr combined, in order", "echo out; echo err >&2; echo out2", "out\nerr\nout2\n", 0, ""},
		{"exit code", "echo failing; exit 3", "failing\n", 3, ""},
		{"killed by a signal", "kill -TERM $$", "", -1, "SIGTERM"},
		{"stdin is closed, so a reader ends at once", "cat; echo done", "done\n", 0, ""},
		{"stdin is not a terminal", "test -t 0 && echo tty || echo no-tty", "no-tty\n", 0, ""},
		{"git does not prompt", "echo $GIT_TERMINAL_PROMPT", "0\n", 0, ""},
		{"its own process group", "test \"$(ps -o pgid= -p $$ | tr -d ' ')\" = \"$$\" && echo leader", "leader\n", 0, ""},
		{"the marker is set", "test -n \"$TETHER_SHELL\" && echo marked", "marked\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, out := run(t, context.Background(), Spec{Command: tt.command})
			if out != tt.out {
				t.Errorf("output = %q, want %q", out, tt.out)
			}
			if o.ExitCode != tt.code || o.Signal != tt.signal {
				t.Errorf("exit = %d %q, want %d %q", o.ExitCode, o.Signal, tt.code, tt.signal)
			}
			if o.Stop != Exited {
				t.Errorf("Stop = %v, want Exited", o.Stop)
			}
		})
	}
}

// stubborn starts a grandchild that ignores SIGTERM and prints its pid:
// only SIGKILL to the whole group ends it.
const stubborn = `(trap '' TERM; exec sleep 1000) & echo $!; `

func TestTimeoutKillsGrandchildThatIgnoresTerm(t *testing.T) {
	needProc(t)
	o, out := run(t, context.Background(), Spec{Command: stubborn + "sleep 1000", Timeout: 300 * time.Millisecond})
	if o.Stop != TimedOut {
		t.Fatalf("Stop = %v, want TimedOut", o.Stop)
	}
	if o.Timeout != 300*time.Millisecond {
		t.Errorf("Timeout = %v, want the one that fired", o.Timeout)
	}
	for _, pid := range pids(t, out) {
		if alive(pid) {
			t.Errorf("grandchild %d ignored SIGTERM and is still alive after the timeout", pid)
		}
	}
}

func TestCancelKillsTheGroup(t *testing.T) {
	needProc(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitFile(t, pidFile)
		cancel()
	}()
	o, _ := run(t, ctx, Spec{Command: `(trap '' TERM; exec sleep 1000) & echo $! > pid; wait`, Dir: dir, Timeout: time.Minute})
	if o.Stop != Cancelled || !errors.Is(o.Cause, context.Canceled) {
		t.Fatalf("Stop, Cause = %v, %v; want Cancelled, context.Canceled", o.Stop, o.Cause)
	}
	for _, pid := range pids(t, waitFile(t, pidFile)) {
		if alive(pid) {
			t.Errorf("process %d survived the cancellation", pid)
		}
	}
}

func TestTheDeadlineThatFiredIsNamed(t *testing.T) {
	tests := []struct {
		name      string
		ctxLimit  time.Duration
		timeout   time.Duration
		wantStop  StopReason
		wantCause error
	}{
		{"own timeout first", time.Minute, 200 * time.Millisecond, TimedOut, nil},
		{"caller's deadline first", 200 * time.Millisecond, time.Minute, Cancelled, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.ctxLimit)
			defer cancel()
			o, _ := run(t, ctx, Spec{Command: "sleep 1000", Timeout: tt.timeout})
			if o.Stop != tt.wantStop || !errors.Is(o.Cause, tt.wantCause) {
				t.Errorf("Stop, Cause = %v, %v; want %v, %v", o.Stop, o.Cause, tt.wantStop, tt.wantCause)
			}
		})
	}
}

func TestAlreadyCancelledContextRunsNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err := Run(ctx, Spec{Command: "touch ran", Dir: dir}, &syncBuffer{})
	if err != nil || o.Stop != Cancelled {
		t.Fatalf("Run = %v, %v; want Cancelled", o.Stop, err)
	}
	if _, err := exec.Command("test", "-e", filepath.Join(dir, "ran")).Output(); err == nil {
		t.Errorf("the command ran although the context was already cancelled")
	}
}

// A command that leaves something running in the background must not
// leave it behind, nor be held up by it keeping the output pipe open.
func TestProcessesLeftBehindAreStopped(t *testing.T) {
	needProc(t)
	tests := []struct {
		name     string
		command  string
		detaches bool
	}{
		{"background child", "sleep 1000 & echo $!", false},
		{"nohup child", "nohup sleep 1000 >/dev/null 2>&1 & echo $!", false},
		{"child ignoring TERM", stubborn, false},
		{"setsid child holding the output", "setsid sleep 1000 & echo $!", false},
		{"setsid child with its output elsewhere, flagged as detaching", "setsid sleep 1000 >/dev/null 2>&1 & echo $!", true},
		{"double fork", "( ( sleep 1000 & echo $! > pid ) & ); while [ ! -s pid ]; do sleep 0.01; done; cat pid", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, out := run(t, context.Background(), Spec{Command: tt.command, Detaches: tt.detaches})
			if o.Stop != Exited || o.ExitCode != 0 {
				t.Errorf("Stop, ExitCode = %v, %d; want Exited, 0", o.Stop, o.ExitCode)
			}
			if o.Leftovers == 0 {
				t.Errorf("Leftovers = 0, want the process left behind counted")
			}
			for _, pid := range pids(t, out) {
				if alive(pid) {
					t.Errorf("process %d outlived the command", pid)
				}
			}
		})
	}
}

func TestOutputOfTwoMillionLinesKeepsBothEnds(t *testing.T) {
	const max = 64 << 10
	capture := NewCapture(max)
	o, err := Run(context.Background(), Spec{Command: "seq 1 2000000", Dir: t.TempDir()}, capture)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("Run: %v, exit %d", err, o.ExitCode)
	}
	s := capture.String()
	if !strings.HasPrefix(s, "1\n2\n3\n") {
		t.Errorf("the head is lost: %q", s[:40])
	}
	if !strings.HasSuffix(s, "\n1999999\n2000000\n") {
		t.Errorf("the tail is lost: %q", s[len(s)-40:])
	}
	if !strings.Contains(s, "lines,") || !strings.Contains(s, "omitted") {
		t.Errorf("no marker says what was cut")
	}
	if len(s) > max+200 {
		t.Errorf("kept %d bytes, over the cap of %d", len(s), max)
	}
	if total := capture.Total(); total != 14888896 {
		t.Errorf("Total = %d, want every byte counted (14888896)", total)
	}
	t.Logf("2,000,000 lines (%d bytes) kept as %d bytes", capture.Total(), len(s))
}

func TestBadInputIsExplained(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"missing shell", Spec{Command: "true", Shell: "/nonexistent/bash"}, "shell /nonexistent/bash does not exist"},
		{"missing folder", Spec{Command: "true", Dir: "/nonexistent/folder"}, "working folder /nonexistent/folder does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.spec, &syncBuffer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestBinaryOutputIsDetected(t *testing.T) {
	capture := NewCapture(1000)
	if _, err := Run(context.Background(), Spec{Command: `printf 'PK\003\004\000\001'`, Dir: t.TempDir()}, capture); err != nil {
		t.Fatal(err)
	}
	if !capture.Binary() {
		t.Errorf("output with NUL bytes was not taken for binary")
	}
}

func TestFindShellPrefersBash(t *testing.T) {
	sh, err := FindShell()
	if err != nil {
		t.Fatal(err)
	}
	if _, lerr := exec.LookPath("bash"); lerr == nil && filepath.Base(sh) != "bash" {
		t.Errorf("FindShell = %s although bash is installed", sh)
	}
}

func TestNoFileHandleLeaks(t *testing.T) {
	needProc(t)
	count := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	// The garbage collector closes a forgotten *os.File, which would hide
	// a leak; it is off for the duration.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// One run first, so lazily opened descriptors (/dev/null) are in place.
	run(t, context.Background(), Spec{Command: "true"})
	before := count()
	for _, cmd := range []string{"echo hi", "exit 1", "sleep 1000 &", "setsid sleep 1000 &"} {
		for i := 0; i < 5; i++ {
			run(t, context.Background(), Spec{Command: cmd})
		}
	}
	if after := count(); after > before {
		t.Errorf("open file descriptors went from %d to %d over 20 commands", before, after)
	}
}
