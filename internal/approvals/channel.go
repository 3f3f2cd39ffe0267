package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/tether-dev/tether/protocol"
)

// MaxMessageBytes bounds what one connection may carry. An edit's
// approval holds the file's text before and after (each up to the
// change pipeline's 64 MiB) and its diff.
const MaxMessageBytes = 320 << 20

// helloWait is how long an approver waits for a connection's first
// request, and the question after it: a peer that says nothing is
// dropped. The user's answer itself has no time limit.
const helloWait = 30 * time.Second

// JSON-RPC error codes the channel answers with.
const (
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInternal       = -32603
)

// Approver answers the questions that arrive on a project's channel.
type Approver interface {
	// Hello says who answers.
	Hello() protocol.ApprovalsHelloResult
	// Approve puts one approval to the user; ctx ends when the asker
	// withdraws it.
	Approve(ctx context.Context, from protocol.ApprovalsHelloParams, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error)
	// Ask puts one ask_user question to the user.
	Ask(ctx context.Context, from protocol.ApprovalsHelloParams, q protocol.UserAskParams) (protocol.UserAskResult, error)
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int             `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int             `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// Listener holds a project's channel.
type Listener struct {
	ln      net.Listener
	addr    string
	release func()
	log     *slog.Logger

	closeOnce sync.Once
	conns     sync.WaitGroup
}

// Listen takes the channel of the project rooted at root. It fails with
// ErrBusy when another approver holds it.
func Listen(root string, log *slog.Logger) (*Listener, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, addr, release, err := listen(root)
	if err != nil {
		return nil, err
	}
	return &Listener{ln: ln, addr: addr, release: release, log: log}, nil
}

// newListener wraps a listener made by listenAt (tests of one path).
func newListener(ln net.Listener, addr string, release func(), log *slog.Logger) *Listener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Listener{ln: ln, addr: addr, release: release, log: log}
}

// Addr is the socket's path (the pipe's name on Windows).
func (l *Listener) Addr() string { return l.addr }

// Close gives the channel up: the socket is removed, and questions being
// asked are withdrawn once Serve returns.
func (l *Listener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		err = l.ln.Close()
		l.release()
	})
	return err
}

// Serve answers connections with a until ctx ends or the listener is
// closed; it closes the listener, and returns once every question it was
// asking is over.
func (l *Listener) Serve(ctx context.Context, a Approver) error {
	// Deferred in this order, they run backwards: the listener closes,
	// the questions still open are withdrawn, then they are waited for.
	defer l.conns.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	defer l.Close()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		l.conns.Add(1)
		go func() {
			defer l.conns.Done()
			l.handle(ctx, c, a)
		}()
	}
}

// handle answers one connection: hello, then one question.
func (l *Listener) handle(ctx context.Context, c net.Conn, a Approver) {
	defer c.Close()
	if err := peerIsUs(c); err != nil {
		l.log.Warn("refused a connection to the approvals channel", "addr", l.addr, "err", err)
		return
	}
	dec := json.NewDecoder(io.LimitReader(c, MaxMessageBytes))
	enc := json.NewEncoder(c)
	var hello request
	_ = c.SetReadDeadline(time.Now().Add(helloWait))
	if err := dec.Decode(&hello); err != nil || hello.Method != protocol.ApprovalsHello.Method {
		l.log.Warn("dropped a connection to the approvals channel that did not say hello", "err", err, "method", hello.Method)
		return
	}
	var from protocol.ApprovalsHelloParams
	if err := json.Unmarshal(hello.Params, &from); err != nil {
		_ = reply(enc, hello.ID, nil, &rpcError{codeInvalidRequest, "approvals/hello: " + err.Error()})
		return
	}
	if err := reply(enc, hello.ID, a.Hello(), nil); err != nil {
		return
	}
	var q request
	_ = c.SetReadDeadline(time.Now().Add(helloWait))
	if err := dec.Decode(&q); err != nil {
		l.log.Debug("an asker left before asking", "client", from.Client, "err", err)
		return
	}
	_ = c.SetReadDeadline(time.Time{})

	// The asker sends nothing more: when its end closes (the call was
	// cancelled, tether mcp ended), the question is withdrawn.
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		var b [1]byte
		_, _ = c.Read(b[:])
		cancel()
	}()
	defer func() {
		c.Close()
		<-gone
	}()

	var result any
	var rerr error
	switch q.Method {
	case protocol.MethodApprovalRequest:
		var p protocol.ApprovalRequestParams
		if err := json.Unmarshal(q.Params, &p); err != nil {
			_ = reply(enc, q.ID, nil, &rpcError{codeInvalidRequest, "approval/request: " + err.Error()})
			return
		}
		result, rerr = a.Approve(qctx, from, p)
	case protocol.MethodUserAsk:
		var p protocol.UserAskParams
		if err := json.Unmarshal(q.Params, &p); err != nil {
			_ = reply(enc, q.ID, nil, &rpcError{codeInvalidRequest, "user/ask: " + err.Error()})
			return
		}
		result, rerr = a.Ask(qctx, from, p)
	default:
		_ = reply(enc, q.ID, nil, &rpcError{codeMethodNotFound, fmt.Sprintf("the approvals channel answers %s and %s, not %q", protocol.MethodApprovalRequest, protocol.MethodUserAsk, q.Method)})
		return
	}
	if qctx.Err() != nil {
		return // withdrawn: nobody reads the answer
	}
	if rerr != nil {
		_ = reply(enc, q.ID, nil, &rpcError{codeInternal, rerr.Error()})
		return
	}
	if err := reply(enc, q.ID, result, nil); err != nil {
		l.log.Warn("could not send the answer", "client", from.Client, "err", err)
	}
}

func reply(enc *json.Encoder, id int, result any, e *rpcError) error {
	resp := response{JSONRPC: "2.0", ID: id, Error: e}
	if e == nil {
		raw, err := json.Marshal(result)
		if err != nil {
			return err
		}
		resp.Result = raw
	}
	return enc.Encode(resp)
}

// Conn is one question's connection to a project's approver.
type Conn struct {
	c        net.Conn
	dec      *json.Decoder
	approver protocol.ApprovalsHelloResult
	seq      int
}

// Dial connects to the approver of the project rooted at root and says
// hello. It fails with ErrNoApprover when nobody listens.
func Dial(ctx context.Context, root string, p protocol.ApprovalsHelloParams) (*Conn, error) {
	c, err := dial(ctx, root)
	if err != nil {
		return nil, err
	}
	return hello(ctx, c, p)
}

// hello checks the approver's user and says hello on c.
func hello(ctx context.Context, c net.Conn, p protocol.ApprovalsHelloParams) (*Conn, error) {
	if err := peerIsUs(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("refusing the approvals channel: %w", err)
	}
	conn := &Conn{c: c, dec: json.NewDecoder(io.LimitReader(c, MaxMessageBytes))}
	if err := conn.call(ctx, protocol.ApprovalsHello.Method, p, &conn.approver); err != nil {
		c.Close()
		return nil, err
	}
	return conn, nil
}

// Approver says who answers.
func (c *Conn) Approver() protocol.ApprovalsHelloResult { return c.approver }

// Approve asks one approval and waits for the answer; ending ctx
// withdraws it.
func (c *Conn) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	var res protocol.ApprovalRequestResult
	err := c.call(ctx, protocol.MethodApprovalRequest, req, &res)
	return res, err
}

// Ask asks one ask_user question and waits for the answer.
func (c *Conn) Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	var res protocol.UserAskResult
	err := c.call(ctx, protocol.MethodUserAsk, q, &res)
	return res, err
}

// Close ends the connection, withdrawing a question still open.
func (c *Conn) Close() error { return c.c.Close() }

func (c *Conn) call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Ending ctx unblocks the write or read under way.
	stop := context.AfterFunc(ctx, func() { _ = c.c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	c.seq++
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	line, err := json.Marshal(request{JSONRPC: "2.0", ID: c.seq, Method: method, Params: raw})
	if err != nil {
		return err
	}
	if _, err := c.c.Write(append(line, '\n')); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the approver went away: %w", err)
	}
	var resp response
	if err := c.dec.Decode(&resp); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the approver went away without answering: %w", err)
	}
	if resp.ID != c.seq {
		return fmt.Errorf("the approver answered request %d, not %d", resp.ID, c.seq)
	}
	if resp.Error != nil {
		return resp.Error
	}
	return json.Unmarshal(resp.Result, result)
}
