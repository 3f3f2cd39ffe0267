package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/protocol"
)

type shellOutputArgs struct {
	JobID  string `json:"job_id" jsonschema:"The job id that shell returned when it started the job (job-1, job-2, …)."`
	Filter string `json:"filter,omitempty" jsonschema:"Only return new lines that match this regular expression (Go RE2 syntax, e.g. 'error|FAIL'). Lines that do not match are skipped for good."`
}

// ShellOutput is the shell_output tool. Polling a job repeats the same
// call, and each answer is new, so the repeat guard lets it through.
var ShellOutput Tool = repeatable{New(Def[shellOutputArgs]{
	Name: "shell_output",
	Description: `Check a background job started by shell with background: true: its status (running, or how it ended and its exit code) and the output written since the last check. ` +
		`With filter (a regular expression) only matching new lines are returned. Long output keeps its start and its end; the job's log file holds everything. ` +
		`It returns at once and does not wait for the job: check again later, or stop the job with shell_kill.`,
	UserDescription: "Check a background command's output",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Available:       func(env *Env) bool { return env.Jobs != nil },
	Tune: func(s *jsonschema.Schema) {
		s.Properties["job_id"].MinLength = jsonschema.Ptr(1)
	},
	Describe: func(a shellOutputArgs) string { return "Checking " + a.JobID },
	Run:      runShellOutput,
})}

func runShellOutput(_ context.Context, c *Call, a shellOutputArgs) Result {
	job, res, ok := c.findJob(a.JobID)
	if !ok {
		return res
	}
	var re *regexp.Regexp
	if a.Filter != "" {
		var err error
		if re, err = regexp.Compile(a.Filter); err != nil {
			return Errorf("filter is not a valid regular expression (Go RE2 syntax): %v. Fix it, or leave filter out to see all new output", err)
		}
	}
	if c.Prepare {
		return Result{Title: "Check " + job.ID}
	}
	snap, err := job.Read(re, max(c.Budget.OutputChars()-outputReserve, 1000))
	if err != nil {
		return Errorf("%v", err)
	}
	return Text(describeJob(job, snap, a.Filter))
}

// describeJob renders one read of a job: a status line, then its new output.
func describeJob(job *shell.Job, snap shell.Snapshot, filter string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (pid %d, `%s`): %s\n", job.ID, job.Pid, oneLine(job.Command, 80), jobStatus(job, snap))
	switch {
	case snap.NewBytes == 0:
		b.WriteString("No new output since the last check.\n")
	case filter != "" && snap.Matched == 0:
		fmt.Fprintf(&b, "No new line matched %q (%s of new output skipped).\n", filter, humanBytes(snap.NewBytes))
	case filter != "":
		fmt.Fprintf(&b, "%d new line(s) matched %q:\n", snap.Matched, filter)
		b.WriteString(cleanJobOutput(snap.Output))
	default:
		fmt.Fprintf(&b, "New output (%s):\n", humanBytes(snap.NewBytes))
		b.WriteString(cleanJobOutput(snap.Output))
	}
	if snap.Dropped > 0 {
		fmt.Fprintf(&b, "[the log reached its %s cap: %s of later output was dropped]\n", humanBytes(shell.MaxLogBytes), humanBytes(snap.Dropped))
	}
	return b.String()
}

func jobStatus(job *shell.Job, snap shell.Snapshot) string {
	if snap.Running {
		return "running for " + time.Since(job.Started).Round(time.Second).String()
	}
	notes, _ := describeOutcome(snap.Outcome, false)
	return "ended — " + strings.Join(notes, "; ")
}

func cleanJobOutput(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return "(the output holds binary data and is not shown)\n"
	}
	s = shell.CleanOutput(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// findJob looks a job up, or says why it cannot.
func (c *Call) findJob(id string) (*shell.Job, Result, bool) {
	if c.Env.Jobs == nil {
		return nil, Errorf("background jobs are not available here, so there is no job %q", id), false
	}
	job, ok := c.Env.Jobs.Get(id)
	if !ok {
		ids := c.Env.Jobs.IDs()
		if len(ids) == 0 {
			return nil, Errorf("there is no job %q: no background job is known (start one with shell and background: true; a stopped job is forgotten)", id), false
		}
		return nil, Errorf("there is no job %q; the known jobs are %s", id, strings.Join(ids, ", ")), false
	}
	return job, Result{}, true
}

// repeatable marks a tool whose identical calls rightly return new
// answers, so that the registry's repeat guard lets them through.
type repeatable struct{ Tool }

func (repeatable) Repeatable() bool { return true }

// Available forwards to the wrapped tool.
func (r repeatable) Available(env *Env) bool { return offered(r.Tool, env) }
