package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/sandbox"
)

// The process-tree guarantees hold for a command in the sandbox too:
// nothing it starts outlives it, whether it ends, times out, is cancelled
// or its daemon is killed, and that includes the sandbox's own first
// process. Pids inside the sandbox mean nothing outside, so the tests
// find the command's processes by what they run: a sleep of a duration
// no other process has.

var (
	levelOnce sync.Once
	machine   sandbox.Status
)

// confined builds a spec at level for a command in dir, skipping the test
// where this machine does not pass that level.
func confined(t *testing.T, level sandbox.Level, dir string) *sandbox.Spec {
	t.Helper()
	levelOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		machine = sandbox.Probe(ctx, "")
	})
	if level == sandbox.LevelFull && machine.Level != sandbox.LevelFull || level == sandbox.LevelLandlock && machine.LandlockABI < 2 {
		t.Skipf("this machine does not pass the %s level: %s", level, machine.Why)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sandbox.Build(sandbox.Options{Level: level, Folders: []sandbox.Folder{{Path: real}}}, sandbox.DefaultLayout())
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// tag is a sleep duration no other process uses.
func tag() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	n, _ := strconv.ParseUint(hex.EncodeToString(b[:]), 16, 32)
	return "1000." + strconv.FormatUint(n, 10)
}

// running lists the live processes of the machine whose command line is
// exactly argv.
func running(argv ...string) []int {
	want := strings.Join(argv, "\x00") + "\x00"
	var out []int
	for pid := range readProcs() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && string(b) == want && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// sandboxInits lists the live sandbox inits this process started (other
// test binaries running at the same time have their own).
func sandboxInits() []int {
	var out []int
	for pid, st := range readProcs() {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if st.ppid == os.Getpid() && strings.HasPrefix(string(b), "tether-sandbox\x00") && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// waitGone polls until no process runs argv; it reports what is left.
func waitGone(argv ...string) []int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := running(argv...)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var sandboxLevels = []sandbox.Level{sandbox.LevelFull, sandbox.LevelLandlock}

func TestSandboxedCommandReportsExitCodeAndSignal(t *testing.T) {
	for _, level := range sandboxLevels {
		t.Run(string(level), func(t *testing.T) {
			dir := t.TempDir()
			s := confined(t, level, dir)
			o, out := run(t, context.Background(), Spec{Command: "echo hello; exit 3", Dir: dir, Sandbox: s})
			if o.ExitCode != 3 || o.Signal != "" || strings.TrimSpace(out) != "hello" || o.Sandbox != level {
				t.Errorf("exit 3: %+v, output %q", o, out)
			}
			o, _ = run(t, context.Background(), Spec{Command: "kill -KILL $$", Dir: dir, Sandbox: s})
			if o.ExitCode != -1 || o.Signal != "SIGKILL" {
				t.Errorf("killed by SIGKILL: %+v", o)
			}
			if o.Sandbox != level || (level == sandbox.LevelFull) != (o.LandlockABI > 0) && level == sandbox.LevelFull && machine.LandlockABI >= 2 {
				t.Errorf("the outcome does not name the level: %+v", o)
			}
		})
	}
}

func TestSandboxedEscapeesAreStopped(t *testing.T) {
	for _, level := range sandboxLevels {
		t.Run(string(level), func(t *testing.T) {
			dir := t.TempDir()
			s := confined(t, level, dir)
			a, b := tag(), tag()
			cmd := "env -i setsid sleep " + a + " >/dev/null 2>&1 & (env -i setsid sh -c 'sleep " + b + " >/dev/null 2>&1 &' >/dev/null 2>&1 &); sleep 0.2; echo started"
			o, out := run(t, context.Background(), Spec{Command: cmd, Dir: dir, Sandbox: s})
			if o.Stop != Exited || o.ExitCode != 0 || !strings.Contains(out, "started") {
				t.Fatalf("outcome %+v, output %q", o, out)
			}
			if o.Leftovers == 0 {
				t.Error("what the command left running was not counted")
			}
			for _, d := range []string{a, b} {
				if left := running("sleep", d); len(left) > 0 {
					t.Errorf("sleep %s outlived the command: pids %v", d, left)
				}
			}
			if inits := sandboxInits(); len(inits) > 0 {
				t.Errorf("sandbox inits still running: %v", inits)
			}
		})
	}
}

func TestSandboxedCommandStopsOnTimeoutAndCancel(t *testing.T) {
	for _, level := range sandboxLevels {
		t.Run("timeout/"+string(level), func(t *testing.T) {
			dir := t.TempDir()
			s := confined(t, level, dir)
			a, b := tag(), tag()
			o, _ := run(t, context.Background(), Spec{Command: "trap '' TERM; env -i setsid sleep " + a + " & sleep " + b, Dir: dir, Timeout: time.Second, Sandbox: s})
			if o.Stop != TimedOut {
				t.Fatalf("Stop = %v", o.Stop)
			}
			for _, d := range []string{a, b} {
				if left := running("sleep", d); len(left) > 0 {
					t.Errorf("sleep %s outlived the timeout: %v", d, left)
				}
			}
			if inits := sandboxInits(); len(inits) > 0 {
				t.Errorf("sandbox inits outlived the timeout: %v", inits)
			}
		})
		t.Run("cancel/"+string(level), func(t *testing.T) {
			dir := t.TempDir()
			s := confined(t, level, dir)
			a := tag()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for len(running("sleep", a)) == 0 {
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}()
			o, _ := run(t, ctx, Spec{Command: "env -i setsid sleep " + a + " & wait", Dir: dir, Timeout: time.Minute, Sandbox: s})
			if o.Stop != Cancelled {
				t.Fatalf("Stop = %v", o.Stop)
			}
			if left := running("sleep", a); len(left) > 0 {
				t.Errorf("sleep outlived the cancellation: %v", left)
			}
			if inits := sandboxInits(); len(inits) > 0 {
				t.Errorf("sandbox inits outlived the cancellation: %v", inits)
			}
		})
	}
}

func TestSandboxedJobIsStoppedWithEverythingItStarted(t *testing.T) {
	for _, level := range sandboxLevels {
		t.Run(string(level), func(t *testing.T) {
			m := openJobs(t)
			dir := t.TempDir()
			a, b := tag(), tag()
			j, err := m.Start(Spec{Command: "env -i setsid sleep " + a + " & echo up; sleep " + b, Dir: dir, Grace: 100 * time.Millisecond, Sandbox: confined(t, level, dir)})
			if err != nil {
				t.Fatal(err)
			}
			readUntil(t, j, nil, func(all string, _ Snapshot) bool { return strings.Contains(all, "up") })
			for len(running("sleep", a)) == 0 {
				time.Sleep(10 * time.Millisecond)
			}
			if _, err := m.Kill(j.ID); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{a, b} {
				if left := running("sleep", d); len(left) > 0 {
					t.Errorf("sleep %s outlived shell_kill: %v", d, left)
				}
			}
			if alive(j.Pid) {
				t.Errorf("the job's sandbox init %d outlived it", j.Pid)
			}
		})
	}
}

// The helper mode of the test binary: a stand-in daemon that runs a
// sandboxed background job and a sandboxed foreground command, each with
// a child that escapes its process group, then waits to be killed.
func init() {
	if os.Getenv("SHELL_TEST_SANDBOX_DAEMON") == "" {
		return
	}
	dir := os.Getenv("SHELL_TEST_DIR")
	level := sandbox.Level(os.Getenv("SHELL_TEST_SANDBOX_DAEMON"))
	m, err := OpenJobs()
	if err != nil {
		os.Exit(3)
	}
	s, err := sandbox.Build(sandbox.Options{Level: level, Folders: []sandbox.Folder{{Path: dir}}}, sandbox.DefaultLayout())
	if err != nil {
		os.Exit(4)
	}
	tags := strings.Fields(os.Getenv("SHELL_TEST_TAGS"))
	j, err := m.Start(Spec{Command: "env -i setsid sleep " + tags[0] + " & sleep " + tags[1], Dir: dir, Sandbox: &s})
	if err != nil {
		os.Exit(5)
	}
	go m.Run(context.Background(), Spec{Command: "env -i setsid sleep " + tags[2] + " & sleep " + tags[3], Dir: dir, Sandbox: &s}, &syncBuffer{})
	os.WriteFile(filepath.Join(dir, "job.pid"), []byte(strconv.Itoa(j.Pid)+"\n"), 0o600)
	time.Sleep(time.Hour)
	os.Exit(0)
}

// SIGKILL to the daemon: at the full level its commands' sandboxes die
// with it, every process in them included, though nothing is left to
// clean up after it (the kernel ends a pid namespace with its first
// process). At the landlock level, as for a command run unconfined, what
// escaped its process group is stopped by the next daemon.
func TestSandboxesDieWithAKilledDaemon(t *testing.T) {
	for _, level := range sandboxLevels {
		t.Run(string(level), func(t *testing.T) {
			dir := t.TempDir()
			confined(t, level, dir)
			real, _ := filepath.EvalSymlinks(dir)
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			tags := []string{tag(), tag(), tag(), tag()}
			t.Cleanup(func() {
				for _, d := range tags {
					for _, p := range running("sleep", d) {
						syscall.Kill(p, syscall.SIGKILL)
					}
				}
			})
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "SHELL_TEST_SANDBOX_DAEMON="+string(level), "SHELL_TEST_DIR="+real, "SHELL_TEST_TAGS="+strings.Join(tags, " "))
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			init := pids(t, waitFile(t, filepath.Join(real, "job.pid")))[0]
			deadline := time.Now().Add(10 * time.Second)
			for _, d := range tags {
				for len(running("sleep", d)) == 0 && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
			}
			for _, d := range tags {
				if len(running("sleep", d)) == 0 {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("sleep %s never started; the test proves nothing", d)
				}
			}
			// Every sandbox it started, those started ahead of a command
			// included.
			var inits []int
			deadline = time.Now().Add(10 * time.Second)
			for len(inits) < 1 && time.Now().Before(deadline) {
				inits = nil
				for pid, st := range readProcs() {
					b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
					if st.ppid == cmd.Process.Pid && strings.HasPrefix(string(b), "tether-sandbox\x00") && alive(pid) {
						inits = append(inits, pid)
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			for _, pid := range inits {
				for i := 0; i < 1000 && alive(pid); i++ {
					time.Sleep(10 * time.Millisecond)
				}
				if alive(pid) {
					t.Errorf("a sandbox init %d outlived its killed daemon", pid)
				}
			}
			if level == sandbox.LevelLandlock {
				next, err := OpenJobs()
				if err != nil {
					t.Fatal(err)
				}
				defer next.Close()
				if !strings.Contains(next.Isolation(), "cgroup") {
					t.Skipf("no cgroup could be made here (%s): an escapee of a killed daemon can then not be found", next.Isolation())
				}
			}
			for _, d := range tags {
				if left := waitGone("sleep", d); len(left) > 0 {
					for _, p := range left {
						syscall.Kill(p, syscall.SIGKILL)
					}
					t.Errorf("sleep %s outlived its killed daemon: %v", d, left)
				}
			}
			if level == sandbox.LevelFull {
				for i := 0; i < 1000 && alive(init); i++ {
					time.Sleep(10 * time.Millisecond)
				}
				if alive(init) {
					t.Errorf("the job's sandbox init %d outlived its daemon", init)
				}
			}
		})
	}
}
