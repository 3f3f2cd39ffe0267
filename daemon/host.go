package daemon

import (
	"context"
	"errors"
	"log/slog"

	"go.lsp.dev/jsonrpc2"

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

// clientConn is what the host needs of the connection.
type clientConn interface {
	Call(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error)
	Notify(ctx context.Context, method string, params any) error
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

// PlanChanged sends todo/changed, where the client shows plans. It is sent
// even when the call that made it was just cancelled: it reports something
// that already happened.
func (h *host) PlanChanged(ctx context.Context, items []protocol.TodoItem) {
	if !h.caps.Todo {
		return
	}
	h.notify(ctx, protocol.MethodTodoChanged, protocol.TodoChangedParams{Items: items})
}

// Activity sends tools/activity, where the client shows plans.
func (h *host) Activity(ctx context.Context, a protocol.Activity) {
	if !h.caps.Todo {
		return
	}
	h.notify(ctx, protocol.MethodToolsActivity, a)
}

// Chat sends model/chat and waits for the model's turn.
func (h *host) Chat(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
	var res protocol.ModelChatResult
	if !h.caps.Models {
		return res, tool.ErrNoModel
	}
	err := h.callClient(ctx, protocol.MethodModelChat, p, &res)
	return res, err
}

// InvokeTool sends tools/invoke: the editor runs a compose program's tool
// call itself (and shows it in the chat), as an ordinary tools/call.
func (h *host) InvokeTool(ctx context.Context, p protocol.ToolInvokeParams) (protocol.ToolCallResult, error) {
	var res protocol.ToolCallResult
	if !h.caps.InvokeTools {
		return res, errors.New("the editor cannot run tool calls (it did not declare the invokeTools capability)")
	}
	err := h.callClient(ctx, protocol.MethodToolsInvoke, p, &res)
	return res, err
}

// notify sends a notification, even for a call just cancelled; a client
// gone away is only logged.
func (h *host) notify(ctx context.Context, method string, params any) {
	if err := h.conn.Notify(context.WithoutCancel(ctx), method, params); err != nil {
		h.log.Warn("notifying the client", "method", method, "err", err)
	}
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
