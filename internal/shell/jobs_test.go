//go:build unix

package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openJobs opens a manager whose logs live in a temporary state folder.
func openJobs(t *testing.T) *Jobs {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	m, err := OpenJobs()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// readUntil polls a job until cond holds for everything read so far.
func readUntil(t *testing.T, j *Job, re *regexp.Regexp, cond func(all string, s Snapshot) bool) (string, Snapshot) {
	t.Helper()
	var all strings.Builder
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := j.Read(re, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(s.Output)
		if cond(all.String(), s) {
			return all.String(), s
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting; read so far: %q, last snapshot %+v", all.String(), s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestJobsLogLivesUnderXDGStateHome(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	if got, want := JobsRoot(), filepath.Join(state, "tether", "jobs"); got != want {
		t.Errorf("JobsRoot = %s, want %s", got, want)
	}
	m, err := OpenJobs()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !strings.HasPrefix(m.Dir(), filepath.Join(state, "tether", "jobs")+string(filepath.Separator)) {
		t.Errorf("Dir = %s, not under the state folder", m.Dir())
	}
}

func TestJobReportsStatusExitCodeAndNewOutput(t *testing.T) {
	m := openJobs(t)
	dir := t.TempDir()
	j, err := m.Start(Spec{Command: "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second; exit 7", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if j.ID != "job-1" || j.Pid <= 0 || !strings.HasPrefix(j.LogPath, m.Dir()) {
		t.Errorf("job = %s pid %d log %s", j.ID, j.Pid, j.LogPath)
	}
	out, s := readUntil(t, j, nil, func(all string, _ Snapshot) bool { return all == "first\n" })
	if out != "first\n" {
		t.Errorf("output = %q, want the first line", out)
	}
	if !s.Running {
		t.Errorf("the job is reported ended while it waits")
	}
	// Nothing new: the same output is not handed out twice.
	if s, _ := j.Read(nil, 1<<20); s.Output != "" || s.NewBytes != 0 {
		t.Errorf("a second read returned %q again", s.Output)
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o600)
	<-j.Done()
	out, s = readUntil(t, j, nil, func(all string, s Snapshot) bool { return !s.Running })
	if out != "second\n" {
		t.Errorf("new output = %q, want only what came after the last read", out)
	}
	if s.Outcome.ExitCode != 7 || s.Outcome.Stop != Exited {
		t.Errorf("outcome = %+v, want exit code 7", s.Outcome)
	}
}

func TestJobFilterReturnsMatchingLinesOnly(t *testing.T) {
	m := openJobs(t)
	j, err := m.Start(Spec{Command: "printf 'ok 1\\nFAIL a\\nok 2\\nFAIL b\\npartial FAIL'", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	<-j.Done()
	s, err := j.Read(regexp.MustCompile(`FAIL`), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if s.Output != "FAIL a\nFAIL b\npartial FAIL\n" || s.Matched != 3 {
		t.Errorf("filtered output = %q (%d matched)", s.Output, s.Matched)
	}
	if s, _ := j.Read(nil, 1<<20); s.Output != "" {
		t.Errorf("lines skipped by the filter came back: %q", s.Output)
	}
}

// While a job runs, a line still being written is left for the next read,
// so a filter never matches half a line.
func TestJobFilterWaitsForWholeLines(t *testing.T) {
	m := openJobs(t)
	dir := t.TempDir()
	j, err := m.Start(Spec{Command: "printf 'ERR'; while [ ! -e go ]; do sleep 0.01; done; printf 'OR here\\n'", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if written, _ := j.log.size(); written == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never wrote its first bytes")
		}
	}
	re := regexp.MustCompile(`ERROR`)
	if s, _ := j.Read(re, 1<<20); s.Matched != 0 || s.NewBytes != 0 {
		t.Errorf("a partial line was consumed: %+v", s)
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o600)
	<-j.Done()
	if s, _ := j.Read(re, 1<<20); s.Output != "ERROR here\n" {
		t.Errorf("the whole line was not matched: %+v", s)
	}
}

func TestKillStopsJobAndEverythingItStarted(t *testing.T) {
	needProc(t)
	m := openJobs(t)
	j, err := m.Start(Spec{Command: stubborn + "sleep 1000", Dir: t.TempDir(), Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := readUntil(t, j, nil, func(all string, _ Snapshot) bool { return strings.HasSuffix(all, "\n") })
	if _, err := m.Kill(j.ID); err != nil {
		t.Fatal(err)
	}
	o := j.Outcome()
	if o.Stop != Cancelled || !errors.Is(o.Cause, ErrKilled) {
		t.Errorf("outcome = %+v, want stopped with shell_kill", o)
	}
	for _, pid := range append(pids(t, out), j.Pid) {
		if alive(pid) {
			t.Errorf("process %d survived shell_kill", pid)
		}
	}
	m.Remove(j.ID)
	if _, err := os.Stat(j.LogPath); !os.IsNotExist(err) {
		t.Errorf("the log of a removed job is still there: %v", err)
	}
	if _, ok := m.Get(j.ID); ok {
		t.Errorf("a removed job is still known")
	}
}

func TestJobTimeout(t *testing.T) {
	m := openJobs(t)
	j, err := m.Start(Spec{Command: "sleep 1000", Dir: t.TempDir(), Timeout: 100 * time.Millisecond, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	<-j.Done()
	if o := j.Outcome(); o.Stop != TimedOut {
		t.Errorf("outcome = %+v, want TimedOut", o)
	}
}

func TestJobsDieWithTheDaemon(t *testing.T) {
	needProc(t)
	m := openJobs(t)
	var jobs []*Job
	for i := 0; i < 3; i++ {
		j, err := m.Start(Spec{Command: stubborn + "sleep 1000", Dir: t.TempDir(), Grace: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	var all []int
	for _, j := range jobs {
		out, _ := readUntil(t, j, nil, func(all string, _ Snapshot) bool { return strings.HasSuffix(all, "\n") })
		all = append(all, j.Pid)
		all = append(all, pids(t, out)...)
	}
	// A foreground command running at that moment dies too.
	fgDone := make(chan Outcome)
	fgDir := t.TempDir()
	go func() {
		o, _ := m.Run(context.Background(), Spec{Command: "sleep 1000 & echo $! > pid; wait", Dir: fgDir, Grace: 100 * time.Millisecond}, &syncBuffer{})
		fgDone <- o
	}()
	all = append(all, pids(t, waitFile(t, filepath.Join(fgDir, "pid")))...)
	dir := m.Dir()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range all {
		if alive(pid) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
	if o := <-fgDone; o.Stop != Cancelled || !errors.Is(o.Cause, ErrClosing) {
		t.Errorf("foreground outcome = %+v, want stopped by Close", o)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the log folder survived Close: %v", err)
	}
	if _, err := m.Start(Spec{Command: "true"}); !errors.Is(err, ErrClosing) {
		t.Errorf("Start after Close = %v, want ErrClosing", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("a second Close failed: %v", err)
	}
}

func TestTooManyRunningJobs(t *testing.T) {
	m := openJobs(t)
	m.MaxRunning = 2
	for i := 0; i < 2; i++ {
		if _, err := m.Start(Spec{Command: "sleep 1000", Dir: t.TempDir(), Grace: 100 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := m.Start(Spec{Command: "sleep 1000", Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "job-1, job-2") || !strings.Contains(err.Error(), "shell_kill") {
		t.Errorf("third job: %v, want a refusal naming the running jobs and shell_kill", err)
	}
}

// A daemon that died without closing leaves a folder whose lock nobody
// holds, and perhaps processes carrying its marker: the next daemon clears
// both.
func TestStaleFoldersAndTheirProcessesAreCleaned(t *testing.T) {
	needProc(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root := JobsRoot()
	owner := NewMarker()
	stale := filepath.Join(root, folderPrefix+owner)
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, lockName), nil, 0o600)
	os.WriteFile(filepath.Join(stale, "job-1.log"), []byte("old"), 0o600)
	orphan := exec.Command("sleep", "1000")
	orphan.Env = append(os.Environ(), markerVar+"="+owner+"/job-1")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { orphan.Wait(); close(reaped) }()

	// A live daemon's folder must be left alone.
	live, err := OpenJobs()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale folder is still there: %v", err)
	}
	select {
	case <-reaped:
	case <-time.After(10 * time.Second):
		orphan.Process.Kill()
		<-reaped
		t.Fatalf("the dead daemon's process was not stopped")
	}
	next, err := OpenJobs()
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := os.Stat(live.Dir()); err != nil {
		t.Errorf("a live daemon's folder was removed: %v", err)
	}
}

func TestJobLogCap(t *testing.T) {
	dir := t.TempDir()
	l, err := createJobLog(filepath.Join(dir, "x.log"))
	if err != nil {
		t.Fatal(err)
	}
	l.limit = 10
	for _, w := range []string{"12345", "67890abc", "def"} {
		if n, err := l.Write([]byte(w)); n != len(w) || err != nil {
			t.Errorf("Write(%q) = %d, %v; a full log must still accept writes", w, n, err)
		}
	}
	l.close()
	written, dropped := l.size()
	data, _ := os.ReadFile(filepath.Join(dir, "x.log"))
	if string(data) != "1234567890" || written != 10 || dropped != 6 {
		t.Errorf("log = %q, written %d, dropped %d; want the first 10 bytes kept and 6 dropped", data, written, dropped)
	}
}

// A manager makes its folder (and its cgroup) for its first command, not
// when it opens: a session that runs no command leaves nothing behind and
// pays nothing for it. Once made, the folder goes when the manager closes.
func TestJobsFolderIsMadeForTheFirstCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "jobs")
	folders := func() []string {
		t.Helper()
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	idle, err := OpenJobsIn(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := folders(); len(got) != 0 {
		t.Fatalf("an unused manager made %v", got)
	}
	if err := idle.Close(); err != nil {
		t.Fatal(err)
	}

	m, err := OpenJobsIn(root)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if o, err := m.Run(context.Background(), Spec{Command: "true", Dir: t.TempDir()}, &syncBuffer{}); err != nil || o.ExitCode != 0 {
		t.Fatalf("true: %+v %v", o, err)
	}
	if got := folders(); len(got) != 1 || got[0] != folderPrefix+m.owner || filepath.Join(root, got[0]) != m.Dir() {
		t.Fatalf("after a command the jobs root holds %v, want only %s", got, m.Dir())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if got := folders(); len(got) != 0 {
		t.Fatalf("a closed manager left %v", got)
	}
}
