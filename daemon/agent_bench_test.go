package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// BenchmarkAgentTurnOverTheWire times a sub-agent's turns through Serve
// in-process: per turn the daemon sends model/chat with the conversation
// so far, the test client decodes it and answers at once (no model) with a
// call of a tool that does nothing, and the daemon reports the call's
// activity and the plan to a client that shows them. Each iteration is a
// child of the default turn limit; turn-ns is the wall time per turn and
// cpu-ns/turn the CPU time the process (daemon and client) spent on it.
func BenchmarkAgentTurnOverTheWire(b *testing.B) {
	turns := tool.DefaultAgentMaxTurns
	chat := func(_ context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		n := len(p.Messages) / 2
		usage := &protocol.ChatUsage{InputTokens: 1000 + 60*n, OutputTokens: 20}
		if n >= turns-1 {
			return protocol.ModelChatResult{Content: "done", StopReason: protocol.StopEnd, Usage: usage}, nil
		}
		args, _ := json.Marshal(map[string]string{"tag": strconv.Itoa(n % 2)})
		return protocol.ModelChatResult{
			ToolCalls:  []protocol.ChatToolCall{{ID: strconv.Itoa(n), Name: "count", Arguments: args}},
			StopReason: protocol.StopToolCalls, Usage: usage,
		}, nil
	}
	tt := &testTools{started: make(chan string, 1)}
	count := tt.registry()
	countTool, _ := count.Lookup("count")
	f := start(b, fixtureOptions{registry: tool.NewRegistry(tools.ReadFile, tools.Todo, countTool, tools.Agent), chat: chat})
	var res protocol.InitializeResult
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Todo: true, Models: true}, nil), &res)
	ctx := waitCtx(b)
	b.ReportAllocs()
	total := 0
	cpu := cpuTime()
	for i := 0; b.Loop(); i++ {
		f.toolIn("r"+strconv.Itoa(i), "todo", map[string]any{"items": []map[string]string{{"text": "step " + strconv.Itoa(i), "status": "in_progress"}}})
		call, err := f.client.Go(ctx, "a"+strconv.Itoa(i), protocol.MethodToolsCall, map[string]any{
			"name": "agent", "requestId": "r" + strconv.Itoa(i), "arguments": map[string]string{"mode": "work", "prompt": "count " + strconv.Itoa(i)}})
		if err != nil {
			b.Fatal(err)
		}
		raw, err := call.Wait(ctx)
		if err != nil || !bytes.Contains(raw, []byte(`"isError":false`)) || !strings.Contains(string(raw), fmt.Sprintf("%d model turns", turns)) {
			b.Fatal(err, string(raw))
		}
		total += turns
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "turn-ns")
	// CPU time of the whole process (daemon and test client) per turn:
	// the work, without the waits for the scheduler of a loaded machine.
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(total), "cpu-ns/turn")
}
