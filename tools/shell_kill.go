package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/protocol"
)

type shellKillArgs struct {
	JobID string `json:"job_id" jsonschema:"The job id that shell returned when it started the job (job-1, job-2, …)."`
}

// ShellKill is the shell_kill tool.
//
// It asks first, as DESIGN.md's table says, though it only stops a job
// Tether itself started: the job may be the server the user is trying
// out, and stopping it is their call. Two cases need no approval because
// nothing is lost: a job that has already ended (only its log is removed),
// and plan mode, where every job is a read-only command.
var ShellKill = New(Def[shellKillArgs]{
	Name: "shell_kill",
	Description: `Stop a background job started by shell with background: true: SIGTERM to it and everything it started, then SIGKILL after 2 seconds. ` +
		`Returns how it ended and its last unread output; the job and its log are then forgotten. Stopping a job that has already ended just removes it.`,
	UserDescription: "Stop a background command",
	Risk:            protocol.RiskMedium,
	Permission:      "asks",
	ReadOnly:        false,
	Available:       func(env *Env) bool { return env.Jobs != nil },
	Tune: func(s *jsonschema.Schema) {
		s.Properties["job_id"].MinLength = jsonschema.Ptr(1)
	},
	Describe: func(a shellKillArgs) string { return "Stopping " + a.JobID },
	Run:      runShellKill,
})

func runShellKill(ctx context.Context, c *Call, a shellKillArgs) Result {
	job, res, ok := c.findJob(a.JobID)
	if !ok {
		return res
	}
	title := fmt.Sprintf("Stop %s: %s", job.ID, oneLine(job.Command, 100))
	needsApproval := job.Running() && c.Env.Mode != protocol.ModePlan
	if needsApproval {
		v := c.Authorize(ctx, Step{
			Request: protocol.ApprovalRequestParams{Kind: protocol.ApprovalShell, Title: title, Command: job.Command, AlwaysScope: "this job only"},
			Action:  permission.Action{Tool: "shell_kill", Changes: true},
		})
		if c.Prepare {
			return Result{Title: title, NeedsApproval: v.Asked, IsError: !v.Allowed, Content: v.Refusal.Content}
		}
		if !v.Allowed {
			return v.Refusal
		}
	} else if c.Prepare {
		return Result{Title: title}
	}
	wasRunning := job.Running()
	if _, err := c.Env.Jobs.Kill(job.ID); err != nil {
		return Errorf("%v", err)
	}
	snap, err := job.Read(nil, max(c.Budget.OutputChars()-outputReserve, 1000))
	c.Env.Jobs.Remove(job.ID)
	if err != nil {
		return Errorf("%v", err)
	}
	var b strings.Builder
	if wasRunning {
		fmt.Fprintf(&b, "Stopped %s.\n", job.ID)
	} else {
		fmt.Fprintf(&b, "%s had already ended; it is now forgotten and its log removed.\n", job.ID)
	}
	b.WriteString(describeJob(job, snap, ""))
	return Text(b.String())
}
