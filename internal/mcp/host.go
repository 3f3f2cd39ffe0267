package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/approvals"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// host is the tools' window on the user and the client's model.
// Approvals and questions go to the project's approver (an editor, or
// `tether approvals` in a terminal) or to the MCP client as elicitations,
// as Options.Approvals says; a sub-agent's model turns go to the client
// as sampling requests, each through the asker of the call they belong
// to. The plan and the activity feed have nowhere to go: the todo tool's
// result carries the plan.
type host struct {
	tool.NoHost
	s *server
	// root is the project's primary folder: whose approver is asked.
	root string
}

// Elicitation actions, as the client answers them.
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
)

// Approve asks the user to allow one step: yes, always, skip or no. Where
// nobody can be asked, or the client turns the question down unseen, it
// returns an error that says how the user can answer, so the step is
// refused, never silently allowed.
func (h *host) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	a := askerFrom(ctx)
	if a == nil {
		return protocol.ApprovalRequestResult{}, tool.ErrNobodyToAsk
	}
	req.From = a.client()
	c, err := h.approver(ctx, a)
	switch {
	case c != nil:
		defer c.Close()
		res, err := c.Approve(ctx, req)
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("%s could not put the question to the user: %w", c.Approver().Name, err)
		}
		return res, err
	case errors.Is(err, errCannotAsk):
		return protocol.ApprovalRequestResult{}, fmt.Errorf("%w. %s", err, allowAdvice(req.Kind))
	case err != nil:
		return protocol.ApprovalRequestResult{}, err
	}
	return h.elicitApproval(ctx, a, req)
}

// Ask puts an ask_user question to the user the same way.
func (h *host) Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	a := askerFrom(ctx)
	if a == nil {
		return protocol.UserAskResult{}, tool.ErrNobodyToAsk
	}
	q.From = a.client()
	c, err := h.approver(ctx, a)
	switch {
	case c != nil:
		defer c.Close()
		return c.Ask(ctx, q)
	case err != nil:
		return protocol.UserAskResult{}, err
	}
	return h.elicitAsk(ctx, a, q)
}

// approver connects to the project's approver where the route asks for
// one. It returns neither a connection nor an error when the question
// goes to the client by elicitation instead.
func (h *host) approver(ctx context.Context, a asker) (*approvals.Conn, error) {
	route := h.s.o.Approvals
	if route == RouteElicitation {
		return nil, nil
	}
	hello := protocol.ApprovalsHelloParams{Client: a.client(), PID: os.Getpid(), Version: h.s.o.Version, Workspace: h.root}
	c, err := approvals.Dial(ctx, h.root, hello)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, approvals.ErrNoApprover) {
			h.s.log.Warn("the project's approvals channel cannot be used", "root", h.root, "err", err)
		}
		switch route {
		case RouteEditor:
			return nil, fmt.Errorf("no editor is answering this project's questions (%v): open %s in VS Code with the Tether extension, or start tether mcp with --approvals auto", err, h.root)
		case RouteTerminal:
			return nil, fmt.Errorf("no `tether approvals` is answering this project's questions (%v): run `tether approvals` in a terminal in %s", err, h.root)
		}
		if canElicit(a.caps()) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: answer it in the editor (open %s in VS Code with the Tether extension) or in `tether approvals` (run it in a terminal there), then call the tool again", errCannotAsk, h.root)
	}
	if want := wantApprover[route]; want != "" && c.Approver().Approver != want {
		c.Close()
		return nil, fmt.Errorf("--approvals %s asks the %s, but %s answers this project's questions now: end it, or start tether mcp with --approvals auto", route, want, c.Approver().Name)
	}
	return c, nil
}

// errCannotAsk: the client cannot show a question and no approver
// answers for the project.
var errCannotAsk = errors.New("this MCP client offers no form elicitation, so it cannot show the question, and no editor or `tether approvals` is answering for this project")

// wantApprover is the approver each route insists on.
var wantApprover = map[ApprovalRoute]protocol.ApproverKind{RouteEditor: protocol.ApproverEditor, RouteTerminal: protocol.ApproverTerminal}

// unseen is the error for a question the client turned down faster than
// anyone can read it: some clients declare elicitation and decline every
// request without showing it. It is never taken for the user's no.
func unseen(took time.Duration) error {
	return fmt.Errorf("the client declined without showing the question: answer it in the editor or in `tether approvals` (open this project in VS Code with the Tether extension, or run `tether approvals` in a terminal in it), then call the tool again. The client answered within %s, faster than anyone reads a question; some MCP clients decline every question unseen", took.Round(time.Millisecond))
}

// elicitApproval puts the approval to the client as a form. A no (the
// client's decline) or a dismissal counts as the user's answer only when
// it took longer than Options.InstantDecline.
func (h *host) elicitApproval(ctx context.Context, a asker, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	if !canElicit(a.caps()) {
		return protocol.ApprovalRequestResult{}, fmt.Errorf("this MCP client offers no form elicitation, so it cannot show approval prompts. %s", allowAdvice(req.Kind))
	}
	start := h.s.clock()
	res, err := a.elicit(ctx, approvalForm(req))
	took := h.s.clock().Sub(start)
	if err != nil {
		if ctx.Err() != nil {
			return protocol.ApprovalRequestResult{}, ctx.Err()
		}
		return protocol.ApprovalRequestResult{}, fmt.Errorf("the approval prompt failed (%v): answer it in the editor or in `tether approvals` instead (open this project in VS Code with the Tether extension, or run `tether approvals` in a terminal in it), then call the tool again. %s", err, allowAdvice(req.Kind))
	}
	switch res.Action {
	case actionAccept:
		answer, _ := res.Content["answer"].(string)
		switch a := protocol.Answer(answer); a {
		case protocol.AnswerYes, protocol.AnswerAlways, protocol.AnswerSkip, protocol.AnswerNo:
			return protocol.ApprovalRequestResult{Answer: a}, nil
		}
		return protocol.ApprovalRequestResult{}, fmt.Errorf("the approval prompt came back without an answer (yes, always, skip or no). %s", allowAdvice(req.Kind))
	case actionDecline, actionCancel:
		if took < h.s.o.InstantDecline {
			return protocol.ApprovalRequestResult{}, unseen(took)
		}
		if res.Action == actionDecline {
			return protocol.ApprovalRequestResult{Answer: protocol.AnswerNo}, nil
		}
		// Dismissed without a choice: the step is left out, as Escape
		// leaves it out in the editor.
		return protocol.ApprovalRequestResult{Answer: protocol.AnswerSkip}, nil
	}
	return protocol.ApprovalRequestResult{}, fmt.Errorf("the MCP client answered the approval prompt with %q. %s", res.Action, allowAdvice(req.Kind))
}

// allowAdvice says how the user can let such a step run without a
// question. Never a silent allow: each way is the user's choice.
func allowAdvice(kind protocol.ApprovalKind) string {
	const review = "`tether allow` lists and clears the saved \"always\" answers"
	switch kind {
	case protocol.ApprovalEdit:
		return "To let file changes inside the workspace run without asking, start `tether mcp` with `--mode acceptEdits`; or answer \"always\" where the question is shown (" + review + ")."
	case protocol.ApprovalShell:
		return "To let this program run without asking, answer \"always\" where the question is shown (" + review + "); `tether trust` lets the project's own test runners run."
	case protocol.ApprovalOutside:
		return "Work inside the workspace (`tether mcp --workspace DIR`, repeatable), or answer \"always\" for this folder where the question is shown (" + review + ")."
	}
	return "Answer \"always\" where the question is shown (" + review + "), or start `tether mcp` with a `--mode` that allows it."
}

// approvalForm is the elicitation for one step.
func approvalForm(req protocol.ApprovalRequestParams) *sdk.ElicitParams {
	always := "Always: " + req.AlwaysScope
	answers := []string{string(protocol.AnswerYes), string(protocol.AnswerAlways), string(protocol.AnswerSkip), string(protocol.AnswerNo)}
	names := []string{"Yes, this once", always, "Skip this step", "No, stop"}
	described := "yes: this once; always: " + req.AlwaysScope + "; skip: carry on without this step; no: stop"
	if req.AlwaysScope == "" {
		// "always" is not offered: the step asks every time.
		answers = []string{string(protocol.AnswerYes), string(protocol.AnswerSkip), string(protocol.AnswerNo)}
		names = []string{"Yes, this once", "Skip this step", "No, stop"}
		described = "yes: this once; skip: carry on without this step; no: stop"
	}
	return &sdk.ElicitParams{
		Mode:    "form",
		Message: approvalMessage(req),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"answer": map[string]any{
					"type":        "string",
					"title":       "Allow?",
					"description": described,
					"enum":        answers,
					"enumNames":   names,
				},
			},
			"required": []string{"answer"},
		},
	}
}

// elicitAsk puts an ask_user question as a form: the options as a
// choice, and a text field where the question allows an answer of the
// user's own. A decline or dismissal leaves it unanswered, unless it came
// back too fast to have been shown.
func (h *host) elicitAsk(ctx context.Context, a asker, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	if !canElicit(a.caps()) {
		return protocol.UserAskResult{}, tool.ErrNobodyToAsk
	}
	start := h.s.clock()
	res, err := a.elicit(ctx, askForm(q))
	took := h.s.clock().Sub(start)
	if err != nil {
		return protocol.UserAskResult{}, err
	}
	if res.Action != actionAccept {
		if took < h.s.o.InstantDecline {
			return protocol.UserAskResult{}, unseen(took)
		}
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
func (h *host) Chat(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
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
