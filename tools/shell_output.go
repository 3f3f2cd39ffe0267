package tools

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type shellOutputArgs struct {
	JobID  string `json:"job_id" jsonschema:"The job id that shell returned when it started the job (job-1, job-2, …)."`
	Filter string `json:"filter,omitempty" jsonschema:"Only return new lines that match this regular expression (Go RE2 syntax, e.g. 'error|FAIL'). Lines that do not match are skipped for good."`
}

//go:embed shell_output.md
var shellOutputDoc string

// ShellOutput is the shell_output tool. Polling a job repeats the same
// call, and each answer is new, so the repeat guard lets it through.
var ShellOutput = tool.New(tool.Def[shellOutputArgs]{
	Name:            "shell_output",
	Doc:             shellOutputDoc,
	UserDescription: "Check a background command's output",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Available:       func(env *tool.Env) bool { return env.Jobs != nil },
	NotAvailable:    "needs a daemon that keeps background jobs (tether serve)",
	Tune: func(s *jsonschema.Schema) {
		s.Properties["job_id"].MinLength = jsonschema.Ptr(1)
	},
	Describe:   func(a shellOutputArgs) string { return "Checking " + a.JobID },
	Run:        runShellOutput,
	Repeatable: true,
})

func runShellOutput(_ context.Context, c *tool.Call, a shellOutputArgs) (tool.Result, error) {
	job, res, ok := findJob(c, a.JobID)
	if !ok {
		return res, nil
	}
	var re *regexp.Regexp
	if a.Filter != "" {
		var err error
		if re, err = regexp.Compile(a.Filter); err != nil {
			return tool.Failf("filter is not a valid regular expression (Go RE2 syntax): %v. Fix it, or leave filter out to see all new output", err), nil
		}
	}
	if c.Prepare {
		return tool.Result{Title: "Check " + job.ID}, nil
	}
	snap, err := job.Read(re, max(c.Budget.OutputChars()-outputReserve, 1000))
	if err != nil {
		// The job's log is Tether's own file: failing to read it is a fault.
		return tool.Result{}, err
	}
	return tool.Text(describeJob(job, snap, a.Filter)), nil
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
func findJob(c *tool.Call, id string) (*shell.Job, tool.Result, bool) {
	if c.Env.Jobs == nil {
		return nil, tool.Failf("background jobs are not available here, so there is no job %q", id), false
	}
	job, ok := c.Env.Jobs.Get(id)
	if !ok {
		ids := c.Env.Jobs.IDs()
		if len(ids) == 0 {
			return nil, tool.Failf("there is no job %q: no background job is known (start one with shell and background: true; a stopped job is forgotten)", id), false
		}
		return nil, tool.Failf("there is no job %q; the known jobs are %s", id, strings.Join(ids, ", ")), false
	}
	return job, tool.Result{}, true
}
