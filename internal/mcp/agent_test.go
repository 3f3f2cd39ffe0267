package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// scriptedModel plays a client's model for sampling: its first turn reads
// a file, its second answers with what the file said.
type scriptedModel struct {
	mu    sync.Mutex
	turns []*sdk.CreateMessageWithToolsParams
}

func (m *scriptedModel) sample(_ context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, req.Params)
	if len(m.turns) == 1 {
		return &sdk.CreateMessageWithToolsResult{Role: "assistant", Model: "scripted", StopReason: "toolUse", Content: []sdk.Content{
			&sdk.ToolUseContent{ID: "c1", Name: "read_file", Input: map[string]any{"path": "notes.txt"}},
		}}, nil
	}
	var seen string
	for _, msg := range req.Params.Messages {
		for _, c := range msg.Content {
			if r, ok := c.(*sdk.ToolResultContent); ok {
				for _, rc := range r.Content {
					if tc, ok := rc.(*sdk.TextContent); ok {
						seen += tc.Text
					}
				}
			}
		}
	}
	answer := "no file was read"
	if strings.Contains(seen, "the launch code is 1234") {
		answer = "The notes say the launch code is 1234."
	}
	return &sdk.CreateMessageWithToolsResult{Role: "assistant", Model: "scripted", StopReason: "endTurn", Content: []sdk.Content{&sdk.TextContent{Text: answer}}}, nil
}

// agent runs a sub-agent whose model turns are the client's sampling: the
// tool is offered to a client that samples with tools, the sub-agent's
// tool calls run in the workspace, and its final answer is the result.
func TestAgentThroughSampling(t *testing.T) {
	for _, version := range []string{latest, v1125} {
		t.Run("protocol "+version, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "notes.txt", "the launch code is 1234\n")
			m := &scriptedModel{}
			s := f.connect(t, newClient(&sdk.ClientOptions{CreateMessageWithToolsHandler: m.sample}), version)
			list, err := s.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(names(list.Tools), " "), "agent") {
				t.Fatalf("agent is not offered to a client that samples: %v", names(list.Tools))
			}
			got := mustOK(t, "agent", s.call(t, "agent", map[string]any{"prompt": "What do the notes in notes.txt say?", "mode": "inspect"}))
			if !strings.Contains(got, "The notes say the launch code is 1234.") {
				t.Errorf("the sub-agent's answer is not the result:\n%s", got)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			if len(m.turns) != 2 {
				t.Fatalf("the client's model took %d turns, want 2", len(m.turns))
			}
			first := m.turns[0]
			var offered []string
			for _, tl := range first.Tools {
				offered = append(offered, tl.Name)
			}
			if !strings.Contains(strings.Join(offered, " "), "read_file") || strings.Contains(strings.Join(offered, " "), "write_file") {
				t.Errorf("an inspect sub-agent was offered %v", offered)
			}
			if brief, ok := first.Messages[0].Content[0].(*sdk.TextContent); !ok || !strings.Contains(brief.Text, "What do the notes in notes.txt say?") {
				t.Errorf("the first turn does not carry the task: %+v", first.Messages[0])
			}
		})
	}
}
