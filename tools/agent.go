package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/agent"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type agentArgs struct {
	Prompt      string `json:"prompt" jsonschema:"The whole task, self-contained: the sub-agent sees nothing else of this conversation."`
	Mode        string `json:"mode" jsonschema:"inspect (read and search only; runs alongside other inspect agents) or work (every tool but agent; one at a time)."`
	Description string `json:"description,omitempty" jsonschema:"A few words for the user on what the sub-agent does."`
}

//go:embed agent.md
var agentDoc string

// Agent is the agent tool: a sub-agent run by the daemon with the model
// the client serves.
var Agent = tool.New(tool.Def[agentArgs]{
	Name: agent.Name,
	Doc:  agentDoc,
	Data: func(s *tool.Settings) any {
		return struct {
			InspectTools string
			ShellTimeout time.Duration
			WallTime     time.Duration
			MaxTurns     int
		}{strings.Join(agent.InspectTools, ", "), max(agent.ShellTimeout, s.ShellDefaultTimeout()), agent.WallTime, s.AgentTurns()}
	},
	UserDescription: "Hand a task to a sub-agent",
	Risk:            protocol.RiskHigh,
	Permission:      "per child call",
	Tune: func(s *jsonschema.Schema) {
		s.Properties["prompt"].MinLength = jsonschema.Ptr(1)
		s.Properties["mode"].Enum = []any{string(agent.Inspect), string(agent.Work)}
	},
	Describe: func(a agentArgs) string {
		what := a.Description
		if what == "" {
			what = oneLine(a.Prompt, 60)
		}
		return fmt.Sprintf("Sub-agent (%s): %s", a.Mode, what)
	},
	Available:    func(env *tool.Env) bool { return env.Capabilities.Models },
	NotAvailable: "needs a client that serves a language model (model/chat): the VS Code extension, or an MCP client that offers sampling",
	Run:          runAgent,
})

func runAgent(ctx context.Context, c *tool.Call, a agentArgs) (tool.Result, error) {
	task := agent.Task{Prompt: a.Prompt, Mode: agent.Mode(a.Mode), Description: a.Description}
	if c.Prepare {
		return tool.Result{Title: fmt.Sprintf("Run a sub-agent (%s)", a.Mode)}, nil
	}
	out, err := agent.Run(ctx, c, task, agent.Options{})
	switch {
	case errors.Is(err, agent.ErrNested):
		return tool.Failf("agent is not available to a sub-agent: sub-agents are one level deep. Do the task with your own tools, or say in your answer what is left for the agent that started you."), nil
	case errors.Is(err, tool.ErrNoModel):
		return tool.Failf("no sub-agent ran: the editor serves no language model to Tether (%v). Do the task yourself.", err), nil
	case err != nil && out.Cancelled:
		return tool.Cancelled("agent"), nil
	case err != nil:
		return tool.Failf("no sub-agent ran: %v", err), nil
	case out.Cancelled:
		return tool.Result{Content: out.Report(), IsError: true}, nil
	}
	return tool.Result{Content: out.Report(), IsError: !out.Finished()}, nil
}
