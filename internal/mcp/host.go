package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// host is the tools' window on the MCP client. Approvals and questions go
// out as elicitations, a sub-agent's model turns as sampling requests,
// each through the asker of the call they belong to. The plan and the
// activity feed have nowhere to go: the todo tool's result carries the
// plan.
type host struct{ tool.NoHost }

// Elicitation actions, as the client answers them.
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
)

// Approve shows the step as the editor would (the unified diff, the full
// command line, the host) and asks yes / always / skip / no. A client that
// cannot ask, declines or dismisses the prompt gets an error that says how
// to allow such steps, so the step is refused, never silently allowed.
func (host) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	a := askerFrom(ctx)
	if a == nil || !canElicit(a.caps()) {
		return protocol.ApprovalRequestResult{}, fmt.Errorf("this MCP client offers no form elicitation, so it cannot show approval prompts. %s", allowAdvice(req.Kind))
	}
	res, err := a.elicit(ctx, approvalForm(req))
	if err != nil {
		if ctx.Err() != nil {
			return protocol.ApprovalRequestResult{}, ctx.Err()
		}
		return protocol.ApprovalRequestResult{}, fmt.Errorf("the approval prompt failed: %v. %s", err, allowAdvice(req.Kind))
	}
	switch res.Action {
	case actionAccept:
		answer, _ := res.Content["answer"].(string)
		switch a := protocol.Answer(answer); a {
		case protocol.AnswerYes, protocol.AnswerAlways, protocol.AnswerSkip, protocol.AnswerNo:
			return protocol.ApprovalRequestResult{Answer: a}, nil
		}
		return protocol.ApprovalRequestResult{}, fmt.Errorf("the approval prompt came back without an answer (yes, always, skip or no). %s", allowAdvice(req.Kind))
	case actionDecline:
		return protocol.ApprovalRequestResult{}, fmt.Errorf("the MCP client declined the approval prompt (some clients decline every prompt without showing it). %s", allowAdvice(req.Kind))
	case actionCancel:
		return protocol.ApprovalRequestResult{}, fmt.Errorf("the approval prompt was dismissed. %s", allowAdvice(req.Kind))
	}
	return protocol.ApprovalRequestResult{}, fmt.Errorf("the MCP client answered the approval prompt with %q. %s", res.Action, allowAdvice(req.Kind))
}

// allowAdvice says how the user can let such a step run where the client
// shows no prompt. Never a silent allow: each way is the user's choice.
func allowAdvice(kind protocol.ApprovalKind) string {
	const review = "`tether allow` lists and clears the saved \"always\" answers"
	switch kind {
	case protocol.ApprovalEdit:
		return "To let file changes inside the workspace run without asking, start `tether mcp` with `--mode acceptEdits`; or answer \"always\" in a client that shows the prompt (" + review + ")."
	case protocol.ApprovalShell:
		return "To let this program run without asking, answer \"always\" in a client that shows the prompt (" + review + "); `tether trust` lets the project's own test runners run."
	case protocol.ApprovalOutside:
		return "Work inside the workspace (`tether mcp --workspace DIR`, repeatable), or answer \"always\" for this folder in a client that shows the prompt (" + review + ")."
	}
	return "Answer \"always\" in a client that shows the prompt (" + review + "), or start `tether mcp` with a `--mode` that allows it."
}

// approvalForm is the elicitation for one step.
func approvalForm(req protocol.ApprovalRequestParams) *sdk.ElicitParams {
	always := "Always: " + req.AlwaysScope
	return &sdk.ElicitParams{
		Mode:    "form",
		Message: approvalMessage(req),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"answer": map[string]any{
					"type":        "string",
					"title":       "Allow?",
					"description": "yes: this once; always: " + req.AlwaysScope + "; skip: carry on without this step; no: stop",
					"enum":        []string{string(protocol.AnswerYes), string(protocol.AnswerAlways), string(protocol.AnswerSkip), string(protocol.AnswerNo)},
					"enumNames":   []string{"Yes, this once", always, "Skip this step", "No, stop"},
				},
			},
			"required": []string{"answer"},
		},
	}
}

// approvalMessage is what the user reads: what the tool wants, then the
// change as a unified diff, or the command line, host or path, in full.
func approvalMessage(req protocol.ApprovalRequestParams) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tether: %s wants to: %s\n", req.Tool, req.Title)
	switch {
	case req.Diff != "":
		b.WriteString("\n")
		b.WriteString(strings.TrimRight(req.Diff, "\n"))
		b.WriteString("\n")
	case req.Command != "":
		fmt.Fprintf(&b, "\ncommand: %s\n", req.Command)
	case req.Host != "":
		fmt.Fprintf(&b, "\nhost: %s\n", req.Host)
	case req.Path != "":
		fmt.Fprintf(&b, "\npath: %s\n", req.Path)
	}
	if req.Command != "" && req.Diff != "" {
		fmt.Fprintf(&b, "command: %s\n", req.Command)
	}
	fmt.Fprintf(&b, "\nyes: allow this once · always: %s · skip: carry on without it · no: stop", req.AlwaysScope)
	return b.String()
}

// Ask puts an ask_user question as an elicitation: the options as a
// choice, and a text field where the question allows an answer of the
// user's own. Declining or dismissing it leaves the question unanswered.
func (host) Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	a := askerFrom(ctx)
	if a == nil || !canElicit(a.caps()) {
		return protocol.UserAskResult{}, tool.ErrNobodyToAsk
	}
	res, err := a.elicit(ctx, askForm(q))
	if err != nil {
		return protocol.UserAskResult{}, err
	}
	if res.Action != actionAccept {
		return protocol.UserAskResult{Cancelled: true}, nil
	}
	if q.AllowFreeText {
		if own, _ := res.Content["own"].(string); strings.TrimSpace(own) != "" {
			return protocol.UserAskResult{Answer: strings.TrimSpace(own)}, nil
		}
	}
	choice, _ := res.Content["answer"].(string)
	for _, o := range q.Options {
		if o == choice {
			return protocol.UserAskResult{Answer: o}, nil
		}
	}
	return protocol.UserAskResult{Cancelled: true}, nil
}

func askForm(q protocol.UserAskParams) *sdk.ElicitParams {
	props := map[string]any{
		"answer": map[string]any{"type": "string", "title": "Answer", "enum": q.Options},
	}
	schema := map[string]any{"type": "object", "properties": props}
	if q.AllowFreeText {
		props["own"] = map[string]any{"type": "string", "title": "Or your own answer"}
	} else {
		schema["required"] = []string{"answer"}
	}
	return &sdk.ElicitParams{Mode: "form", Message: q.Question, RequestedSchema: schema}
}

// Chat serves a sub-agent's model turn through the client's sampling.
func (host) Chat(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
	a := askerFrom(ctx)
	if a == nil || a.caps().Sampling == nil {
		return protocol.ModelChatResult{}, tool.ErrNoModel
	}
	if len(p.Tools) > 0 && a.caps().Sampling.Tools == nil {
		return protocol.ModelChatResult{}, errors.New("the client's model cannot use tools (its sampling capability has no tools)")
	}
	params, err := samplingParams(p)
	if err != nil {
		return protocol.ModelChatResult{}, err
	}
	res, err := a.sample(ctx, params)
	if err != nil {
		return protocol.ModelChatResult{}, err
	}
	return chatResult(res)
}
