package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/protocol"
)

// withJobs gives the harness a job manager whose logs live in a temporary
// state folder, closed at the end of the test like the daemon would.
func (h *harness) withJobs() *shell.Jobs {
	h.t.Helper()
	h.t.Setenv("XDG_STATE_HOME", h.t.TempDir())
	jobs, err := shell.OpenJobs()
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { jobs.Close() })
	h.env.Jobs = jobs
	return jobs
}

var jobIDPattern = regexp.MustCompile(`job-\d+`)

// pollJob calls shell_output until its answer contains want.
func (h *harness) pollJob(id, filter, want string) string {
	h.t.Helper()
	var all strings.Builder
	args := map[string]any{"job_id": id}
	if filter != "" {
		args["filter"] = filter
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		all.WriteString(h.ok("shell_output", args))
		if strings.Contains(all.String(), want) {
			return all.String()
		}
	}
	h.t.Fatalf("shell_output never said %q; it said:\n%s", want, all.String())
	return ""
}

func TestShellBackgroundJobLifecycle(t *testing.T) {
	h := newHarness(t)
	h.withJobs()
	h.env.Settings.Mode = protocol.ModeBypass
	out := h.ok("shell", map[string]any{"command": "echo ready-$((1+1)); while [ ! -e stop ]; do sleep 0.01; done; echo ERROR one; echo fine; echo ERROR two; exit 4", "background": true})
	id := jobIDPattern.FindString(out)
	if id != "job-1" || !strings.Contains(out, "pid ") || !strings.Contains(out, ".log") {
		t.Fatalf("start answer = %q, want the job id, pid and log path", out)
	}
	// Polling repeats the same call; the repeat guard must let it through.
	// The status line shows the command, so the markers are computed.
	first := h.pollJob(id, "", "ready-2")
	if !strings.Contains(first, "running") {
		t.Errorf("status = %q, want running", first)
	}
	for i := 0; i < 3; i++ {
		if again := h.ok("shell_output", map[string]any{"job_id": id}); !strings.Contains(again, "No new output") {
			t.Errorf("poll %d repeated old output: %q", i, again)
		}
	}
	h.write("stop", "")
	ended := h.pollJob(id, "ERROR", "exit code 4")
	var shown []string
	for _, line := range strings.Split(ended, "\n") {
		if line == "fine" || line == "ready-2" || strings.HasPrefix(line, "ERROR") {
			shown = append(shown, line)
		}
	}
	if strings.Join(shown, "|") != "ERROR one|ERROR two" {
		t.Errorf("filtered output shows %q, want only the two ERROR lines; all:\n%s", shown, ended)
	}
}

func TestShellKillStopsAJobAfterAsking(t *testing.T) {
	h := newHarness(t)
	jobs := h.withJobs()
	h.env.Settings.Mode = protocol.ModeBypass
	out := h.ok("shell", map[string]any{"command": "echo up-$((1+1)); sleep 1000.5151", "background": true})
	id := jobIDPattern.FindString(out)
	h.pollJob(id, "", "up-2")

	h.env.Settings.Mode = protocol.ModeDefault
	h.host.answer = protocol.AnswerNo
	if msg := h.fail("shell_kill", map[string]any{"job_id": id}); !strings.Contains(msg, "declined") {
		t.Errorf("declined kill = %q", msg)
	}
	if job, ok := jobs.Get(id); !ok || !job.Running() {
		t.Fatalf("the job stopped although the user declined")
	}
	h.host.answer = protocol.AnswerYes
	killed := h.ok("shell_kill", map[string]any{"job_id": id})
	if !strings.Contains(killed, "Stopped "+id) || !strings.Contains(killed, "shell_kill") {
		t.Errorf("kill answer = %q", killed)
	}
	req := h.host.requests[len(h.host.requests)-1]
	if req.Kind != protocol.ApprovalShell || !strings.Contains(req.Title, "Stop "+id) || !strings.Contains(req.Command, "sleep 1000") {
		t.Errorf("kill approval = %+v", req)
	}
	if pids := processesRunning("sleep", "1000.5151"); len(pids) > 0 {
		t.Errorf("the job's command is still running: pids %v", pids)
	}
	if msg := h.fail("shell_output", map[string]any{"job_id": id}); !strings.Contains(msg, "no job") {
		t.Errorf("a killed job is still known: %q", msg)
	}
	entries, _ := os.ReadDir(jobs.Dir())
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".log" {
			t.Errorf("the killed job's log %s was left behind", e.Name())
		}
	}
}

func TestShellKillOfAnEndedJobNeedsNoApproval(t *testing.T) {
	h := newHarness(t)
	jobs := h.withJobs()
	h.env.Settings.Mode = protocol.ModeBypass
	id := jobIDPattern.FindString(h.ok("shell", map[string]any{"command": "echo done-$((1+1))", "background": true}))
	job, _ := jobs.Get(id)
	<-job.Done()
	h.env.Settings.Mode = protocol.ModeDefault
	out := h.ok("shell_kill", map[string]any{"job_id": id})
	if !strings.Contains(out, "already ended") || !strings.Contains(out, "done-2") || len(h.host.requests) != 0 {
		t.Errorf("answer = %q, requests %d", out, len(h.host.requests))
	}
}

func TestShellJobToolsBadInput(t *testing.T) {
	h := newHarness(t)
	h.withJobs()
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"shell_output", map[string]any{"job_id": "job-9"}, "no job"},
		{"shell_output", map[string]any{"job_id": ""}, "job_id"},
		{"shell_kill", map[string]any{"job_id": "job-9"}, "no job"},
	}
	for _, tt := range tests {
		if msg := h.fail(tt.tool, tt.args); !strings.Contains(msg, tt.want) {
			t.Errorf("%s(%v) = %q, want it to mention %q", tt.tool, tt.args, msg, tt.want)
		}
	}
	h.env.Settings.Mode = protocol.ModeBypass
	id := jobIDPattern.FindString(h.ok("shell", map[string]any{"command": "true", "background": true}))
	if msg := h.fail("shell_output", map[string]any{"job_id": id, "filter": "(unclosed"}); !strings.Contains(msg, "regular expression") {
		t.Errorf("bad filter = %q", msg)
	}
}

func TestShellBackgroundNeedsAJobManager(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	if msg := h.fail("shell", map[string]any{"command": "sleep 1", "background": true}); !strings.Contains(msg, "not available") {
		t.Errorf("message = %q", msg)
	}
	for _, info := range h.reg.Offered(h.env) {
		if info.Name == "shell_output" || info.Name == "shell_kill" {
			t.Errorf("%s is offered without a job manager", info.Name)
		}
	}
}

// processRunning reports whether /proc shows pid alive: not a zombie (where
// nothing reaps orphans they linger) and not in the middle of exiting.
func processRunning(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 7 || fields[0] == "Z" || fields[0] == "X" {
		return false
	}
	flags, _ := strconv.ParseUint(fields[6], 10, 64)
	const exiting = 0x4
	return flags&exiting == 0
}

// processesRunning lists the live processes, anywhere on the machine,
// whose command line is exactly argv: a sandboxed command's pids mean
// nothing outside its pid namespace, so a test finds them by what they
// run.
func processesRunning(argv ...string) []string {
	want := strings.Join(argv, "\x00") + "\x00"
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(b) == want && processRunning(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}
