package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tether-dev/tether/internal/agent"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// benchTurns is the length of the child each iteration runs: the default
// turn limit, the longest child there is.
const benchTurns = tool.DefaultAgentMaxTurns

// instantHost answers every model turn at once with a call of a tool that
// does nothing, and drops activity and plans: what is left is the
// daemon's own work per turn (the loop, the registry's guardrails, the
// activity and the plan), without the model and without the wire.
type instantHost struct {
	tool.NoHost
	args [2]json.RawMessage
}

func (h *instantHost) Chat(_ context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
	n := len(p.Messages) / 2
	if n >= benchTurns-1 {
		return protocol.ModelChatResult{Content: "done", StopReason: protocol.StopEnd, Usage: &protocol.ChatUsage{InputTokens: 1000 + 60*n, OutputTokens: 20}}, nil
	}
	return protocol.ModelChatResult{
		ToolCalls:  []protocol.ChatToolCall{{ID: fmt.Sprint(n), Name: "noop", Arguments: h.args[n%2]}},
		StopReason: protocol.StopToolCalls,
		Usage:      &protocol.ChatUsage{InputTokens: 1000 + 60*n, OutputTokens: 20},
	}, nil
}

type noopArgs struct {
	Tag string `json:"tag"`
}

var noop = tool.New(tool.Def[noopArgs]{
	Name: "noop", Doc: "Does nothing.", Risk: protocol.RiskLow, ReadOnly: true,
	Describe: func(a noopArgs) string { return "Nothing " + a.Tag },
	Run: func(ctx context.Context, c *tool.Call, a noopArgs) (tool.Result, error) {
		return tool.Text("nothing happened to " + a.Tag), nil
	},
})

// BenchmarkChildTurn times one turn of a work child, excluding the model:
// per turn, the loop, the call through the registry, and (shown) the
// activity with the plan's step in progress. turn-ns is the figure.
func BenchmarkChildTurn(b *testing.B) {
	for _, shown := range []bool{false, true} {
		b.Run(fmt.Sprintf("activity-shown=%v", shown), func(b *testing.B) {
			ws, err := workspace.New(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			h := &instantHost{args: [2]json.RawMessage{[]byte(`{"tag":"a"}`), []byte(`{"tag":"b"}`)}}
			env := &tool.Env{Workspace: ws, Host: h, Capabilities: protocol.ClientCapabilities{Models: true, Todo: shown}, Results: tool.NewResults()}
			reg := tool.NewRegistry(tools.ReadFile, noop, tools.Agent)
			sess := tool.NewSession()
			sess.SetPlan([]protocol.TodoItem{{Text: "Work", Status: "in_progress"}})
			b.ReportAllocs()
			turns := 0
			for i := 0; b.Loop(); i++ {
				// A fresh plan each time, so the step's activity stays the
				// size of one child.
				sess.SetPlan([]protocol.TodoItem{{Text: fmt.Sprint(i), Status: "in_progress"}})
				parent := &tool.Call{Name: "agent", RequestID: "r", Session: sess, Env: env, Registry: reg, ID: fmt.Sprint(i)}
				out, err := agent.Run(context.Background(), parent, agent.Task{Prompt: "work", Mode: agent.Work}, agent.Options{})
				if err != nil || !out.Finished() || out.Turns != benchTurns {
					b.Fatalf("%v %+v", err, out)
				}
				turns += out.Turns
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(turns), "turn-ns")
		})
	}
}
