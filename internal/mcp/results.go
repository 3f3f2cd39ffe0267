package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// ChangeResult is the structured content of every result of a tool that
// changes files. Some clients hand the model this content in place of the
// text (VS Code does), so it carries the whole message, and it says
// plainly whether the change happened: a declined or refused change never
// carries a diff or a checkpoint.
type ChangeResult struct {
	// Status is what became of the change.
	Status protocol.ChangeStatus `json:"status"`
	// Message is what the model is told, the same words as the text.
	Message string `json:"message"`
	// Diff is the unified diff of what was written or staged, cut to the
	// call's output budget (head and tail kept); only for written and
	// staged.
	Diff string `json:"diff,omitempty"`
	// RequestID is the request (run of work) the call belongs to.
	RequestID string `json:"requestId"`
	// Checkpoint is the undo checkpoint that puts back every change of
	// the request (`tether undo ID`); only when something was written.
	Checkpoint string `json:"checkpoint,omitempty"`
}

// changeOutputSchema is ChangeResult's JSON Schema, the outputSchema of
// the tools that change files. It is encoded when tether mcp first lists
// its tools, not when any tether command starts.
var changeOutputSchema = sync.OnceValue(func() json.RawMessage {
	return mustJSON(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"status": map[string]any{
				"type":        "string",
				"enum":        protocol.ChangeStatuses,
				"description": "What became of the change: written (on disk, undoable), unchanged (nothing needed changing), staged (dry run: kept as a diff, not written), declined (the user said no), skipped (the user skipped it), refused (a guard, the permission mode or a missing approval stopped it), failed (a fault of the machine; the message says what was written). Only written changed files.",
			},
			"message":    map[string]any{"type": "string", "description": "What happened and what to do next, in words."},
			"diff":       map[string]any{"type": "string", "description": "Unified diff of what was written or staged; absent when nothing was."},
			"requestId":  map[string]any{"type": "string", "description": "The request the call belongs to; one request is one undo checkpoint."},
			"checkpoint": map[string]any{"type": "string", "description": "Undo checkpoint that puts back this request's changes (tether undo ID); only when something was written."},
		},
		"required":             []string{"status", "message", "requestId"},
		"additionalProperties": false,
	})
})

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// changeStatus is what became of a change tool's call: the status the
// pipeline set, else what its result says. A call refused before it got
// as far as a change (a bad argument, a stale file) did not happen.
func changeStatus(res tool.Result) protocol.ChangeStatus {
	switch {
	case res.Status != "":
		return res.Status
	case res.IsError:
		return protocol.StatusRefused
	case res.Diff == "":
		return protocol.StatusUnchanged
	}
	return protocol.StatusWritten
}

// changes reports whether the named tool changes files.
func (s *server) changes(name string) bool {
	t, ok := s.reg.Lookup(name)
	return ok && tool.ChangesFiles(t)
}

// result turns a finished call's result into MCP's. The text is what the
// model reads: the tool's message, then, for a change that was written
// or staged, its diff and undo checkpoint. A tool that changes files
// also gets the same facts as structured content, with the status.
func (s *server) result(r *run) *sdk.CallToolResult {
	res := r.result
	out := &sdk.CallToolResult{IsError: res.IsError}
	changes := s.changes(r.name)
	status := changeStatus(res)
	diff := res.Diff
	if changes && status != protocol.StatusWritten && status != protocol.StatusStaged {
		// A diff of what did not happen reads like one that did.
		diff = ""
	}
	checkpoint := r.checkpoint
	if changes && status != protocol.StatusWritten {
		checkpoint = ""
	}
	if diff != "" {
		diff = tool.CapHeadTail(diff, tool.NewBudget(0, s.settings.TokenBudget).OutputChars())
	}
	if diff == "" && !changes {
		out.Content = []sdk.Content{&sdk.TextContent{Text: res.Content}}
		return out
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(res.Content, "\n"))
	if diff != "" {
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(diff, "\n"))
		b.WriteString("\n")
	}
	if diff != "" && checkpoint != "" {
		fmt.Fprintf(&b, "\nUndo checkpoint %s (request %s): `tether undo %s` puts back every change of this request.\n", checkpoint, r.requestID, checkpoint)
	}
	if changes {
		fmt.Fprintf(&b, "\nStatus: %s.", status)
		out.StructuredContent = ChangeResult{Status: status, Message: res.Content, Diff: diff, RequestID: r.requestID, Checkpoint: checkpoint}
	}
	out.Content = []sdk.Content{&sdk.TextContent{Text: b.String()}}
	return out
}

// errorResult is the result of a call that could not run at all: nothing
// happened.
func (s *server) errorResult(name, format string, args ...any) *sdk.CallToolResult {
	return s.result(&run{name: name, result: tool.Failf(format, args...).WithStatus(protocol.StatusRefused)})
}
