//go:build linux

package daemon_test

// Hardening over the real stdio: a folder swapped for a link to a place
// outside while writes loop, and commands whose processes leave their
// process group, start their own session and clear their environment,
// stopped on timeout, cancellation, shutdown, and after a SIGKILL of the
// daemon by the next daemon. Processes are looked up in /proc.

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/protocol"
)

// TestBinarySwapRaceWritesNothingOutside runs write_file in a loop (bypass
// mode: nothing asks) while a goroutine swaps a workspace folder for a
// symbolic link to a folder outside and back, as fast as it can. Whatever
// the timing, nothing, not even a temporary file, may appear outside.
func TestBinarySwapRaceWritesNothingOutside(t *testing.T) {
	p := startProc(t)
	outside := t.TempDir()
	p.initialize(unconfinedBypass)
	dir, aside := filepath.Join(p.dir, "d"), filepath.Join(p.dir, "d.real")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	swaps := 0
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Each state holds for a moment, so that a check may see one and
			// the write the other.
			if os.Rename(dir, aside) == nil {
				os.Symlink(outside, dir)
				time.Sleep(200 * time.Microsecond)
				os.Remove(dir)
				os.Rename(aside, dir)
				swaps++
				time.Sleep(200 * time.Microsecond)
			}
		}
	}()
	wrote := 0
	for i := range 150 {
		args := map[string]any{"path": "d/f" + strconv.Itoa(i%7) + ".txt", "content": strconv.Itoa(i) + "\n", "append": i%2 == 1}
		if r := p.tool("write_file", args); !r.IsError {
			wrote++
		}
	}
	close(stop)
	<-done
	var found []string
	filepath.WalkDir(outside, func(path string, d fs.DirEntry, err error) error {
		if err == nil && path != outside {
			found = append(found, path)
		}
		return nil
	})
	if len(found) > 0 {
		t.Fatalf("writes reached outside the workspace: %v", found)
	}
	t.Logf("%d of 150 writes landed inside, the rest failed closed, over %d swaps", wrote, swaps)
	p.finish()
}

// escapeCommand starts two processes that escape everything but ancestry
// (a new session, a cleared environment; the second also loses its parent
// at once) and writes their pids to file, one a line.
func escapeCommand(file string) string {
	return "env -i setsid sleep 300 >/dev/null 2>&1 & echo $! >> " + file + "; " +
		"(env -i setsid sh -c 'sleep 300 >/dev/null 2>&1 & echo $! >> " + file + "' >/dev/null 2>&1 &); " +
		"while [ $(wc -l < " + file + ") -lt 2 ]; do sleep 0.01; done; sleep 300"
}

// descendantsOf lists the live processes in /proc that descend from pid.
func descendantsOf(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		parent[n], _ = strconv.Atoi(f[1])
	}
	var out []int
	for n := range parent {
		for q, hops := parent[n], 0; q > 1 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// expectGone fails for every pid still alive (and kills it, so that a
// failing test leaves nothing behind).
func expectGone(t *testing.T, when string, pids []int) {
	t.Helper()
	if len(pids) == 0 {
		t.Fatalf("%s: no pid was recorded", when)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for rpctest.ProcessAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if rpctest.ProcessAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s: process %d survived", when, pid)
		}
	}
}

// killOnCleanup makes sure no recorded process outlives the test, pass or fail.
func killOnCleanup(t *testing.T, file string) {
	t.Cleanup(func() {
		for _, pid := range readPids(file) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// unconfinedBypass runs commands outside the sandbox, so that the pids
// they write are the host's: these tests hold the process tree of an
// unconfined command (sandbox: false, shellSandbox off, Windows); the
// sandboxed one is TestBinarySandboxDiesWithTheDaemon's.
var unconfinedBypass = &protocol.Settings{PermissionMode: protocol.ModeBypass, ShellSandbox: "off"}

func TestBinaryNoOrphans(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		p := startProc(t)
		p.initialize(unconfinedBypass)
		pids := filepath.Join(t.TempDir(), "pids")
		killOnCleanup(t, pids)
		r := p.tool("shell", map[string]any{"command": escapeCommand(pids), "timeout": 3})
		if !r.IsError || !strings.Contains(r.Content, "timeout") {
			t.Fatalf("the command did not time out: %+v", r)
		}
		expectGone(t, "after the timeout", readPids(pids))
		if left := descendantsOf(p.Pid()); len(left) > 0 {
			t.Errorf("the daemon still has descendants after the timeout: %v", left)
		}
		p.finish()
	})
	t.Run("cancel", func(t *testing.T) {
		p := startProc(t)
		p.initialize(unconfinedBypass)
		pids := filepath.Join(t.TempDir(), "pids")
		killOnCleanup(t, pids)
		ctx := waitCtx(t)
		call, err := p.Go(ctx, "shell-1", protocol.MethodToolsCall, map[string]any{"name": "shell", "arguments": map[string]any{"command": escapeCommand(pids)}, "requestId": "req-1"})
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "the command to start its processes", func() bool { return len(readPids(pids)) == 2 })
		if err := call.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		raw, err := call.Wait(ctx)
		var res protocol.ToolCallResult
		if err != nil || json.Unmarshal(raw, &res) != nil || !res.IsError {
			t.Fatalf("cancelled shell: %s %v", raw, err)
		}
		expectGone(t, "after $/cancelRequest", readPids(pids))
		if left := descendantsOf(p.Pid()); len(left) > 0 {
			t.Errorf("the daemon still has descendants after the cancellation: %v", left)
		}
		p.finish()
	})
	t.Run("shutdown", func(t *testing.T) {
		p := startProc(t)
		p.initialize(unconfinedBypass)
		pids := filepath.Join(t.TempDir(), "pids")
		killOnCleanup(t, pids)
		if r := p.tool("shell", map[string]any{"command": escapeCommand(pids), "background": true}); r.IsError {
			t.Fatalf("background job: %+v", r)
		}
		eventually(t, "the job to start its processes", func() bool { return len(readPids(pids)) == 2 })
		p.finish()
		expectGone(t, "after shutdown", readPids(pids))
	})
	t.Run("SIGKILL and restart", func(t *testing.T) {
		p := startProc(t)
		p.initialize(unconfinedBypass)
		pids := filepath.Join(t.TempDir(), "pids")
		killOnCleanup(t, pids)
		if r := p.tool("shell", map[string]any{"command": escapeCommand(pids), "background": true}); r.IsError {
			t.Fatalf("background job: %+v", r)
		}
		eventually(t, "the job to start its processes", func() bool { return len(readPids(pids)) == 2 })
		cgroups, _ := filepath.Glob(filepath.Join(p.state, "tether", "jobs", "d-*", "cgroup"))
		p.KillDaemon()
		if len(cgroups) == 0 {
			t.Skip("no cgroup could be made here (cgroup v2 with a folder the daemon may write): the processes of a SIGKILLed daemon that left its tree cannot be found; the tool's description says so")
		}
		// The next daemon, on the same state folder, sweeps them.
		next := startProcIn(t, p.state)
		next.initialize(unconfinedBypass)
		expectGone(t, "after the next daemon started", readPids(pids))
		next.finish()
	})
}

// TestBinaryNamedPipeIsRefused: read_file and grep of a named pipe with no
// writer answer at once instead of hanging the call.
func TestBinaryNamedPipeIsRefused(t *testing.T) {
	p := startProc(t)
	p.initialize(nil)
	if err := syscall.Mkfifo(filepath.Join(p.dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "pipe"}},
		{"grep", map[string]any{"pattern": "x", "path": "pipe"}},
	} {
		r := p.tool(call.name, call.args)
		if !r.IsError || !strings.Contains(r.Content, "named pipe") {
			t.Errorf("%s of a named pipe: %+v", call.name, r)
		}
	}
	p.finish()
}
