package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapees are commands that start a process which leaves the command's
// process group, starts a session of its own and clears its environment,
// so that neither the group nor the marker finds it: only ancestry does.
var escapees = []struct{ name, command string }{
	{"setsid child with a cleared environment", "env -i setsid sleep 300 >/dev/null 2>&1 & echo $!"},
	{"double fork with a cleared environment", "(env -i setsid sh -c 'sleep 300 >/dev/null 2>&1 & echo $! > pid' >/dev/null 2>&1 &); while [ ! -s pid ]; do sleep 0.01; done; cat pid"},
}

func TestEscapeesAreStoppedWhenTheCommandEnds(t *testing.T) {
	for _, tt := range escapees {
		t.Run(tt.name, func(t *testing.T) {
			o, out := run(t, context.Background(), Spec{Command: tt.command})
			if o.Stop != Exited || o.ExitCode != 0 {
				t.Fatalf("outcome %+v, output %q", o, out)
			}
			for _, pid := range pids(t, out) {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d escaped the command's end", pid)
				}
			}
			if o.Leftovers == 0 {
				t.Error("the escapee was not counted as left behind")
			}
		})
	}
}

func TestEscapeesAreStoppedOnTimeoutAndCancel(t *testing.T) {
	for _, tt := range escapees {
		t.Run("timeout/"+tt.name, func(t *testing.T) {
			dir := t.TempDir()
			o, _ := run(t, context.Background(), Spec{Command: "(" + tt.command + ") > out; sleep 300", Dir: dir, Timeout: 3 * time.Second})
			if o.Stop != TimedOut {
				t.Fatalf("Stop = %v", o.Stop)
			}
			for _, pid := range pids(t, waitFile(t, filepath.Join(dir, "out"))) {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d outlived the timeout", pid)
				}
			}
		})
		t.Run("cancel/"+tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { waitFile(t, filepath.Join(dir, "out")); cancel() }()
			o, _ := run(t, ctx, Spec{Command: "(" + tt.command + ") > out; sleep 300", Dir: dir, Timeout: time.Minute})
			if o.Stop != Cancelled {
				t.Fatalf("Stop = %v", o.Stop)
			}
			for _, pid := range pids(t, waitFile(t, filepath.Join(dir, "out"))) {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d outlived the cancellation", pid)
				}
			}
		})
	}
}

// TestAnotherCommandsDaemonIsLeftAlone: a background job that starts a
// daemon (double fork, environment kept) keeps it while a foreground
// command comes and goes; the job's end stops it.
func TestAnotherCommandsDaemonIsLeftAlone(t *testing.T) {
	m := openJobs(t)
	dir := t.TempDir()
	j, err := m.Start(Spec{Command: "(setsid sleep 300 >/dev/null 2>&1 & echo $! > daemon.pid) ; sleep 300", Dir: dir, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	daemon := pids(t, waitFile(t, filepath.Join(dir, "daemon.pid")))[0]
	o, out := run(t, context.Background(), Spec{Command: escapees[1].command})
	if o.Stop != Exited {
		t.Fatalf("foreground: %+v", o)
	}
	for _, pid := range pids(t, out) {
		if alive(pid) {
			stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
			t.Errorf("the foreground command's escapee %d survived (%+v): %s env %q", pid, o, stat, env)
		}
	}
	if !alive(daemon) {
		t.Fatal("a running job's daemon was stopped by another command's end")
	}
	if _, err := m.Kill(j.ID); err != nil {
		t.Fatal(err)
	}
	if alive(daemon) {
		t.Fatal("the job's daemon outlived the job")
	}
}

func TestThisProcessIsASubreaper(t *testing.T) {
	prepareTree()
	if !subreaper {
		t.Skip("the kernel refused PR_SET_CHILD_SUBREAPER here")
	}
	if p := ThisPlatform(); p.Limits != "" || !p.POSIX {
		t.Errorf("ThisPlatform = %+v", p)
	}
}

// The helper mode of the test binary: a stand-in daemon that opens a job
// manager, starts a job whose child escapes (setsid, cleared
// environment), prints the pids and waits to be killed.
func init() {
	if os.Getenv("SHELL_TEST_DAEMON") != "1" {
		return
	}
	m, err := OpenJobs()
	if err != nil {
		os.Exit(3)
	}
	dir := os.Getenv("SHELL_TEST_DIR")
	j, err := m.Start(Spec{Command: "env -i setsid sleep 300 >/dev/null 2>&1 & echo $! > escapee.pid; sleep 300", Dir: dir})
	if err != nil {
		os.Exit(4)
	}
	os.WriteFile(filepath.Join(dir, "job.pid"), []byte(strconv.Itoa(j.Pid)+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "isolation"), []byte(m.Isolation()+"\n"), 0o600)
	time.Sleep(time.Hour)
	os.Exit(0)
}

// TestLeftoversOfAKilledDaemonAreStoppedByTheNext kills a stand-in daemon
// with SIGKILL while its job's escapee runs: the next job manager to open
// stops the escapee, found through the dead daemon's cgroup.
func TestLeftoversOfAKilledDaemonAreStoppedByTheNext(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "SHELL_TEST_DAEMON=1", "SHELL_TEST_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	escapee := pids(t, waitFile(t, filepath.Join(dir, "escapee.pid")))[0]
	isolation := waitFile(t, filepath.Join(dir, "isolation"))
	t.Cleanup(func() { syscall.Kill(escapee, syscall.SIGKILL) })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !strings.Contains(isolation, "cgroup") {
		t.Skipf("no cgroup could be made here (%s): an escapee of a killed daemon can then not be found", strings.TrimSpace(isolation))
	}
	if !alive(escapee) {
		t.Fatal("the escapee died with the daemon; the test proves nothing")
	}
	next, err := OpenJobs()
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	deadline := time.Now().Add(10 * time.Second)
	for alive(escapee) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(escapee) {
		t.Fatalf("the escapee %d of a killed daemon survived the next daemon's start", escapee)
	}
}

// TestRefusedCgroupFallsBack: should the kernel refuse to start a command
// in the daemon's cgroup, the command runs without it and the manager
// stops using it.
func TestRefusedCgroupFallsBack(t *testing.T) {
	m := openJobs(t)
	if err := m.ready(); err != nil { // the cgroup is made for the first command
		t.Fatal(err)
	}
	notACgroup, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer notACgroup.Close()
	m.cgMu.Lock()
	saved, savedUse := m.cg, m.useCg
	m.cg, m.useCg = &cgroup{path: "not a cgroup", dir: notACgroup}, true
	m.cgMu.Unlock()
	t.Cleanup(func() { m.cgMu.Lock(); m.cg, m.useCg = saved, savedUse; m.cgMu.Unlock() })

	o, err := m.Run(context.Background(), Spec{Command: "echo ran", Dir: t.TempDir()}, &syncBuffer{})
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("a command whose cgroup is refused: %+v %v", o, err)
	}
	if m.cgroupDir() != nil {
		t.Fatal("the manager still uses a cgroup the kernel refused")
	}
	if _, err := m.Run(context.Background(), Spec{Command: "true", Dir: "/nonexistent/folder"}, &syncBuffer{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing folder: %v", err)
	}
}

// TestRecordedGroupsOfADeadDaemonAreStopped: a dead daemon's folder names
// the process groups of its running commands; the next daemon stops them,
// unless the group's id now belongs to a process that started later.
func TestRecordedGroupsOfADeadDaemonAreStopped(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root := JobsRoot()
	stale := filepath.Join(root, folderPrefix+NewMarker())
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, lockName), nil, 0o600)
	startGroup := func() *exec.Cmd {
		c := exec.Command("sleep", "300")
		c.Env = []string{} // no marker: only the record finds it
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	ours, reused := startGroup(), startGroup()
	start, _ := procStart(ours.Process.Pid)
	os.WriteFile(filepath.Join(stale, groupPrefix+strconv.Itoa(ours.Process.Pid)), []byte(strconv.FormatUint(start, 10)), 0o600)
	os.WriteFile(filepath.Join(stale, groupPrefix+strconv.Itoa(reused.Process.Pid)), []byte("1"), 0o600) // started "earlier": not this one
	waited := make(chan error, 1)
	go func() { waited <- ours.Wait() }()

	m, err := OpenJobs()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the dead daemon's recorded process group was not stopped")
	}
	if !alive(reused.Process.Pid) {
		t.Fatal("a process that took a recorded group id later was stopped")
	}
}

// TestCloseStopsOrphansNoSweepCaught: an orphan handed to the daemon that
// no command's sweep caught is stopped when the manager closes.
func TestCloseStopsOrphansNoSweepCaught(t *testing.T) {
	prepareTree()
	if !subreaper {
		t.Skip("the kernel refused PR_SET_CHILD_SUBREAPER here")
	}
	m := openJobs(t)
	dir := t.TempDir()
	// Started outside any command, so no sweep of a command finds it; its
	// parent exits at once and it is handed to this process.
	c := exec.Command("sh", "-c", "(env -i setsid sleep 300 >/dev/null 2>&1 & echo $! > pid)")
	c.Dir = dir
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := pids(t, waitFile(t, filepath.Join(dir, "pid")))[0]
	t.Cleanup(func() { syscall.Kill(orphan, syscall.SIGKILL) })
	eventuallyTrue(t, func() bool { st, ok := procStat(orphan); return ok && st.ppid == os.Getpid() })
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(orphan) {
		t.Fatalf("the orphan %d outlived Close", orphan)
	}
	if st, ok := procStat(orphan); ok {
		t.Fatalf("the orphan %d was left a zombie: %+v", orphan, st)
	}
}

func eventuallyTrue(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("gave up waiting")
		}
	}
}
