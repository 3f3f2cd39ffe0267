package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// host is the tools' window on the client: approvals and questions go out
// as calls, only where initialize said the client can answer them.
type host struct {
	conn clientConn
	caps protocol.ClientCapabilities
	log  *slog.Logger
}

// Approve sends approval/request and waits for the user's answer.
func (h *host) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	if !h.caps.Approval {
		return protocol.ApprovalRequestResult{}, errors.New("the editor cannot show approvals (it did not declare the approval capability)")
	}
	return ask(ctx, h, protocol.ApprovalRequest, req)
}

// Ask sends user/ask and waits for the user's answer.
func (h *host) Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	if !h.caps.AskUser {
		return protocol.UserAskResult{}, errors.New("the editor cannot ask the user questions (it did not declare the askUser capability)")
	}
	return ask(ctx, h, protocol.UserAsk, q)
}

// PlanChanged sends todo/changed, where the client shows plans. It is sent
// even when the call that made it was just cancelled: it reports something
// that already happened.
func (h *host) PlanChanged(ctx context.Context, items []protocol.TodoItem) {
	if !h.caps.Todo {
		return
	}
	tell(ctx, h, protocol.TodoChanged, protocol.TodoChangedParams{Items: items})
}

// Activity sends tools/activity, where the client shows plans.
func (h *host) Activity(ctx context.Context, a protocol.Activity) {
	if !h.caps.Todo {
		return
	}
	tell(ctx, h, protocol.ToolsActivity, a)
}

// Chat sends model/chat and waits for the model's turn.
func (h *host) Chat(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
	if !h.caps.Models {
		return protocol.ModelChatResult{}, tool.ErrNoModel
	}
	return ask(ctx, h, protocol.ModelChat, p)
}

// InvokeTool sends tools/invoke: the editor runs a compose program's tool
// call itself (and shows it in the chat), as an ordinary tools/call.
func (h *host) InvokeTool(ctx context.Context, p protocol.ToolInvokeParams) (protocol.ToolCallResult, error) {
	if !h.caps.InvokeTools {
		return protocol.ToolCallResult{}, errors.New("the editor cannot run tool calls (it did not declare the invokeTools capability)")
	}
	return ask(ctx, h, protocol.ToolsInvoke, p)
}

// tell sends notification m, even for a call just cancelled; a client
// gone away is only logged.
func tell[P any](ctx context.Context, h *host, m protocol.Notification[P], params P) {
	if err := notifyClient(context.WithoutCancel(ctx), h.conn, m, params); err != nil {
		h.log.Warn("notifying the client", "method", m.Method, "err", err)
	}
}

// ask calls the client with request m. When ctx ends first, the client is
// told to cancel too, so the editor closes its prompt instead of leaving
// it open for a call that is gone.
func ask[P, R any](ctx context.Context, h *host, m protocol.Request[P, R], params P) (R, error) {
	res, id, err := callClient(ctx, h.conn, m, params)
	if err != nil && ctx.Err() != nil {
		raw, merr := json.Marshal(&id)
		if merr == nil {
			merr = notifyClient(context.Background(), h.conn, protocol.CancelRequest, protocol.CancelParams{ID: raw})
		}
		if merr != nil {
			h.log.Debug("could not cancel the client's prompt", "method", m.Method, "err", merr)
		}
	}
	return res, err
}
