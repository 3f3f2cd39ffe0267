package daemon

import (
	"context"
	"errors"
	"os"

	"github.com/tether-dev/tether/internal/approvals"
	"github.com/tether-dev/tether/protocol"
)

// serveApprovals answers the questions of `tether mcp` sessions of this
// project with this daemon's editor: each one is relayed to it as
// approval/request or user/ask, and reviewed there as the chat panel's
// own (an edit as the per-hunk diff). It runs while the connection lasts,
// and only for an editor that answers approvals. Another approver (a
// second editor window, `tether approvals`) may hold the project's
// channel already; it keeps it.
func (s *server) serveApprovals(root string, editor string) {
	l, err := approvals.Listen(root, s.logger)
	switch {
	case errors.Is(err, approvals.ErrBusy):
		s.logger.Info("tether mcp's questions for this project go to another approver (another editor window, or tether approvals)", "root", root)
		return
	case err != nil:
		s.logger.Warn("tether mcp's questions cannot reach this editor", "root", root, "err", err)
		return
	}
	s.logger.Info("answering tether mcp's questions for this project", "addr", l.Addr())
	s.approvals.Add(1)
	go func() {
		defer s.approvals.Done()
		if err := l.Serve(s.base, editorApprover{s: s, name: editor}); err != nil {
			s.logger.Warn("the approvals channel stopped", "err", err)
		}
	}()
}

// editorApprover relays the questions to the editor.
type editorApprover struct {
	s    *server
	name string
}

func (a editorApprover) Hello() protocol.ApprovalsHelloResult {
	return protocol.ApprovalsHelloResult{Approver: protocol.ApproverEditor, Name: a.name, PID: os.Getpid()}
}

func (a editorApprover) Approve(ctx context.Context, from protocol.ApprovalsHelloParams, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	if req.From == "" {
		req.From = from.Client
	}
	a.s.logger.Info("asking the editor for tether mcp", "client", req.From, "pid", from.PID, "title", req.Title)
	return a.s.env.Host.Approve(ctx, req)
}

func (a editorApprover) Ask(ctx context.Context, from protocol.ApprovalsHelloParams, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	if q.From == "" {
		q.From = from.Client
	}
	return a.s.env.Host.Ask(ctx, q)
}
