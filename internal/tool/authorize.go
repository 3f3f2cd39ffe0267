package tool

import (
	"context"
	"errors"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/shell/cmdline"
	"github.com/tether-dev/tether/protocol"
)

// Step is one thing a call wants to do that the permission rules judge:
// a change, a read outside the workspace, a command, a fetch.
type Step struct {
	// Request is what the user is shown; its Kind picks the saved-rule scope.
	Request protocol.ApprovalRequestParams
	// Action is what the permission mode judges.
	Action permission.Action
	// Runs are the programs a shell command would run, with their
	// subcommands, for rules saved per program and subcommand.
	Runs []cmdline.Invocation
	// Always is the rule an "always" answer saves; nil means "always" only
	// allows this once.
	Always *permission.Rule
	// NoAlways offers no "always" at all (an empty AlwaysScope): the step
	// is asked every time, and an "always" answer counts as yes.
	NoAlways bool
	// Detail, when set, fills in what only a person looking at the step
	// needs (the texts side by side, the hunks). It runs only when someone
	// is actually asked, so an allowed step does not pay for it.
	Detail func(req *protocol.ApprovalRequestParams)
}

// Verdict is the outcome of Authorize.
type Verdict struct {
	// Allowed is set when the step may go ahead.
	Allowed bool
	// Asked is set when the user was asked (or would be, in a preview).
	Asked bool
	// Answer is the user's full answer when they were asked: an approved
	// edit may carry the text they changed it to.
	Answer protocol.ApprovalRequestResult
	// Refusal is the result to return when the step may not go ahead.
	Refusal Result
}

// Authorize decides whether a step may run: the permission mode first,
// then the project's saved "always" rules (never for sensitive paths),
// then the user. In a preview it never asks, and reports whether it would.
func (c *Call) Authorize(ctx context.Context, s Step) Verdict {
	decision, reason := permission.Decide(c.Env.Mode(), s.Action)
	switch decision {
	case permission.Deny:
		c.refused = true
		return Verdict{Refusal: Failf("%s", reason).WithStatus(protocol.StatusRefused)}
	case permission.Allow:
		return Verdict{Allowed: true}
	}
	// A sensitive path, or a memory write after web content, is shown every
	// time: no saved rule covers it and "always" saves none.
	noRule := s.Action.Sensitive || s.Action.Untrusted
	if !noRule && !s.NoAlways && c.ruleAllows(s) {
		return Verdict{Allowed: true}
	}
	what := s.Request.Title
	s.Request.RequestID, s.Request.Tool = c.RequestID, c.Name
	if s.NoAlways {
		s.Request.AlwaysScope = ""
	} else if s.Request.AlwaysScope == "" {
		s.Request.AlwaysScope = "this step only"
		if s.Always != nil && !noRule {
			s.Request.AlwaysScope = s.Always.String()
		}
	}
	if c.Prepare {
		c.noteAsk(s.Request)
		return Verdict{Allowed: true, Asked: true}
	}
	if s.Detail != nil {
		s.Detail(&s.Request)
	}
	ans, err := c.Host().Approve(ctx, s.Request)
	if err != nil {
		if errors.Is(err, ErrNobodyToAsk) {
			c.refused = true
			return Verdict{Asked: true, Refusal: Failf("%s needs the user's approval and nobody can be asked here, so it did not happen. The user can allow it (for example with --yes, or a permission mode that allows it).", what).WithStatus(protocol.StatusRefused)}
		}
		if ctx.Err() != nil {
			return Verdict{Asked: true, Refusal: Failf("%s was cancelled while waiting for the user's approval; nothing was changed", c.Name).WithStatus(protocol.StatusRefused)}
		}
		return Verdict{Asked: true, Refusal: Failf("%s needs the user's approval, which could not be asked (%v), so it did not happen.", what, err).WithStatus(protocol.StatusRefused)}
	}
	v := Verdict{Asked: true, Answer: ans}
	switch ans.Answer {
	case protocol.AnswerYes:
		v.Allowed = true
	case protocol.AnswerAlways:
		v.Allowed = true
		if s.NoAlways {
			v.Answer.Answer = protocol.AnswerYes // nothing was offered to save
		}
		if s.Always != nil && !noRule && !s.NoAlways && c.Env.Rules != nil {
			if err := c.Env.Rules.Add(*s.Always); err != nil {
				c.Log().Warn("saving an always-allow rule", "rule", s.Always.String(), "err", err)
			}
		}
	case protocol.AnswerSkip:
		c.refused, c.declined = true, true
		v.Refusal = Failf("The user skipped this step: %s did not happen and nothing was changed. Carry on without it, and do not report it as done.", what).WithStatus(protocol.StatusSkipped)
	case protocol.AnswerNo:
		c.refused, c.declined = true, true
		v.Refusal = Failf("The user declined: %s did not happen and nothing was changed. Stop and ask the user how they want to proceed.", what).WithStatus(protocol.StatusDeclined)
	default:
		v.Refusal = Failf("the approval answer %q is not one of yes, always, skip, no, so %s did not happen", ans.Answer, what).WithStatus(protocol.StatusRefused)
	}
	return v
}

// ruleAllows reports whether a saved "always" rule covers the step. A read
// outside the workspace is judged on the real folder it reads in (the
// rule "always" would save); everything else on what the user is shown.
func (c *Call) ruleAllows(s Step) bool {
	if s.Request.Kind == protocol.ApprovalOutside && s.Always != nil && s.Always.Kind == protocol.ApprovalOutside {
		return c.Env.Rules.AllowsDir(s.Always.Dir)
	}
	return c.Env.Rules.Allows(s.Request, s.Runs)
}

// noteAsk records, in a preview, the first step the call would ask about,
// without the texts and hunks of an edit (the preview carries its diff).
func (c *Call) noteAsk(req protocol.ApprovalRequestParams) {
	if c.Asks != nil {
		return
	}
	req.Diff, req.Original, req.Proposed, req.Hunks = "", "", "", nil
	c.Asks = &req
}
