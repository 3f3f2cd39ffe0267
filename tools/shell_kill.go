package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type shellKillArgs struct {
	JobID string `json:"job_id" jsonschema:"The job id that shell returned when it started the job (job-1, job-2, …)."`
}

//go:embed shell_kill.md
var shellKillDoc string

// ShellKill is the shell_kill tool.
//
// It asks first, as DESIGN.md's table says, though it only stops a job
// Tether itself started: the job may be the server the user is trying
// out, and stopping it is their call. Two cases need no approval because
// nothing is lost: a job that has already ended (only its log is removed),
// and plan mode, where every job is a read-only command.
var ShellKill = tool.New(tool.Def[shellKillArgs]{
	Name:            "shell_kill",
	Doc:             shellKillDoc,
	Data:            func(*tool.Settings) any { return struct{ Grace time.Duration }{shell.DefaultGrace} },
	UserDescription: "Stop a background command",
	Risk:            protocol.RiskMedium,
	Permission:      "asks",
	ReadOnly:        false,
	Available:       func(env *tool.Env) bool { return env.Jobs != nil },
	NotAvailable:    "needs a daemon that keeps background jobs (tether serve)",
	Tune: func(s *jsonschema.Schema) {
		s.Properties["job_id"].MinLength = jsonschema.Ptr(1)
	},
	Describe: func(a shellKillArgs) string { return "Stopping " + a.JobID },
	Run:      runShellKill,
})

func runShellKill(ctx context.Context, c *tool.Call, a shellKillArgs) (tool.Result, error) {
	job, res, ok := findJob(c, a.JobID)
	if !ok {
		return res, nil
	}
	title := fmt.Sprintf("Stop %s: %s", job.ID, oneLine(job.Command, 100))
	needsApproval := job.Running() && c.Env.Mode() != protocol.ModePlan
	if needsApproval {
		v := c.Authorize(ctx, tool.Step{
			Request: protocol.ApprovalRequestParams{Kind: protocol.ApprovalShell, Title: title, Command: job.Command, AlwaysScope: "this job only"},
			Action:  permission.Action{Tool: "shell_kill", Changes: true},
		})
		if c.Prepare {
			return tool.Result{Title: title, NeedsApproval: v.Asked, IsError: !v.Allowed, Content: v.Refusal.Content}, nil
		}
		if !v.Allowed {
			return v.Refusal, nil
		}
	} else if c.Prepare {
		return tool.Result{Title: title}, nil
	}
	wasRunning := job.Running()
	if _, err := c.Env.Jobs.Kill(job.ID); err != nil {
		// Kill fails only for a job it does not know: another call forgot
		// this one since findJob found it. findJob says so to the model.
		if _, res, ok := findJob(c, a.JobID); !ok {
			return res, nil
		}
		return tool.Result{}, err
	}
	snap, err := job.Read(nil, max(c.Budget.OutputChars()-outputReserve, 1000))
	c.Env.Jobs.Remove(job.ID)
	if err != nil {
		return tool.Result{}, err // the job's log is Tether's own file
	}
	var b strings.Builder
	if wasRunning {
		fmt.Fprintf(&b, "Stopped %s.\n", job.ID)
	} else {
		fmt.Fprintf(&b, "%s had already ended; it is now forgotten and its log removed.\n", job.ID)
	}
	b.WriteString(describeJob(job, snap, ""))
	return tool.Text(b.String()), nil
}
