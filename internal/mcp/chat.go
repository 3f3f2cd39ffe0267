package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/protocol"
)

// DefaultMaxTokens bounds a model turn whose request names no limit:
// sampling requires one.
const DefaultMaxTokens = 8192

// samplingParams turns a model/chat request into sampling/createMessage.
// Tool results become tool_result blocks of a user message, those that
// follow each other in one message, as the models expect them.
func samplingParams(p protocol.ModelChatParams) (*sdk.CreateMessageWithToolsParams, error) {
	out := &sdk.CreateMessageWithToolsParams{MaxTokens: int64(p.MaxTokens), Messages: []*sdk.SamplingMessageV2{}}
	if out.MaxTokens <= 0 {
		out.MaxTokens = DefaultMaxTokens
	}
	if p.ModelHint != "" {
		out.ModelPreferences = &sdk.ModelPreferences{Hints: []*sdk.ModelHint{{Name: p.ModelHint}}}
	}
	for _, t := range p.Tools {
		out.Tools = append(out.Tools, &sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	var last *sdk.SamplingMessageV2
	for i, m := range p.Messages {
		switch m.Role {
		case protocol.RoleUser:
			last = &sdk.SamplingMessageV2{Role: "user", Content: []sdk.Content{&sdk.TextContent{Text: m.Content}}}
			out.Messages = append(out.Messages, last)
		case protocol.RoleAssistant:
			msg := &sdk.SamplingMessageV2{Role: "assistant"}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				msg.Content = append(msg.Content, &sdk.TextContent{Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				input := map[string]any{}
				if len(tc.Arguments) > 0 && string(tc.Arguments) != "null" {
					if err := json.Unmarshal(tc.Arguments, &input); err != nil {
						return nil, fmt.Errorf("message %d: the arguments of tool call %s are not a JSON object: %v", i, tc.ID, err)
					}
				}
				msg.Content = append(msg.Content, &sdk.ToolUseContent{ID: tc.ID, Name: tc.Name, Input: input})
			}
			last = msg
			out.Messages = append(out.Messages, msg)
		case protocol.RoleTool:
			block := &sdk.ToolResultContent{ToolUseID: m.ToolCallID, Content: []sdk.Content{&sdk.TextContent{Text: m.Content}}}
			if last != nil && last.Role == "user" && isToolResults(last) {
				last.Content = append(last.Content, block)
				continue
			}
			last = &sdk.SamplingMessageV2{Role: "user", Content: []sdk.Content{block}}
			out.Messages = append(out.Messages, last)
		default:
			return nil, fmt.Errorf("message %d has the role %q; the roles are user, assistant and tool", i, m.Role)
		}
	}
	return out, nil
}

func isToolResults(m *sdk.SamplingMessageV2) bool {
	for _, c := range m.Content {
		if _, ok := c.(*sdk.ToolResultContent); !ok {
			return false
		}
	}
	return len(m.Content) > 0
}

// chatResult turns the client's sampled message into a model turn.
func chatResult(res *sdk.CreateMessageWithToolsResult) (protocol.ModelChatResult, error) {
	out := protocol.ModelChatResult{ToolCalls: []protocol.ChatToolCall{}, StopReason: protocol.StopEnd}
	var text []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
		case *sdk.ToolUseContent:
			args, err := json.Marshal(c.Input)
			if err != nil {
				return out, fmt.Errorf("the model's call of %s has arguments that cannot be encoded: %v", c.Name, err)
			}
			out.ToolCalls = append(out.ToolCalls, protocol.ChatToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
	}
	out.Content = strings.Join(text, "\n")
	switch {
	case len(out.ToolCalls) > 0:
		out.StopReason = protocol.StopToolCalls
	case res.StopReason == "maxTokens":
		out.StopReason = protocol.StopLength
	}
	return out, nil
}
