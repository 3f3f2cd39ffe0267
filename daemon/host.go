package daemon

import (
	"context"
	"errors"
	"log/slog"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/protocol"
)

// host is the tools' window on the client: approvals and questions go out
// as calls, only where initialize said the client can answer them.
type host struct {
	conn jsonrpc2.Conn
	caps protocol.ClientCapabilities
	log  *slog.Logger
}

// Approve sends approval/request and waits for the user's answer.
func (h *host) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	var res protocol.ApprovalRequestResult
	if !h.caps.Approval {
		return res, errors.New("the editor cannot show approvals (it did not declare the approval capability)")
	}
	err := h.callClient(ctx, protocol.MethodApprovalRequest, req, &res)
	return res, err
}

// Ask sends user/ask and waits for the user's answer.
func (h *host) Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	var res protocol.UserAskResult
	if !h.caps.AskUser {
		return res, errors.New("the editor cannot ask the user questions (it did not declare the askUser capability)")
	}
	err := h.callClient(ctx, protocol.MethodUserAsk, q, &res)
	return res, err
}

// Notify sends a notification. It is sent even when the call that made it
// was just cancelled: it reports something that already happened.
func (h *host) Notify(ctx context.Context, method string, params any) error {
	return h.conn.Notify(context.WithoutCancel(ctx), method, params)
}

// callClient calls the client. When ctx ends first, the client is told to
// cancel too, so the editor closes its prompt instead of leaving it open
// for a call that is gone.
func (h *host) callClient(ctx context.Context, method string, params, result any) error {
	id, err := h.conn.Call(ctx, method, params, result)
	if err != nil && ctx.Err() != nil {
		cancel := struct {
			ID *jsonrpc2.ID `json:"id"`
		}{&id}
		if nerr := h.conn.Notify(context.Background(), protocol.MethodCancelRequest, cancel); nerr != nil {
			h.log.Debug("could not cancel the client's prompt", "method", method, "err", nerr)
		}
	}
	return err
}
