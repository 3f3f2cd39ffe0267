package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/protocol"
)

// clientCalls are the daemon's own calls to the client (approvals,
// questions, model turns) waiting for their answers.
type clientCalls struct {
	seq     atomic.Int32
	mu      sync.Mutex
	pending map[jsonrpc2.ID]chan *message
}

// deliver hands a response from the client to the call waiting for it; a
// response nobody waits for is dropped.
func (s *server) deliver(m *message) {
	cc := &s.clientCalls
	cc.mu.Lock()
	ch := cc.pending[m.id]
	delete(cc.pending, m.id)
	cc.mu.Unlock()
	if ch != nil {
		ch <- m // buffered: never blocks the reader
	}
}

// callClient calls the client with request m and waits for its answer.
// The id is that of the call, for a $/cancelRequest.
func callClient[P, R any](ctx context.Context, c clientConn, m protocol.Request[P, R], params P) (R, jsonrpc2.ID, error) {
	var res R
	id, err := c.request(ctx, m.Method, params, &res)
	return res, id, err
}

// notifyClient sends notification m to the client.
func notifyClient[P any](ctx context.Context, c clientConn, m protocol.Notification[P], params P) error {
	return c.notify(ctx, m.Method, params)
}

// clientConn is what the daemon's calls to the client need of the
// connection; only callClient and notifyClient use it, so every call and
// notification the daemon sends is one the protocol declares, with its
// types.
type clientConn interface {
	request(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error)
	notify(ctx context.Context, method string, params any) error
}

// request calls the client and waits for its answer, decoded into result.
// While it waits, the call it is made for counts as waiting for the
// client (see slots), so that calls waiting for the user never keep the
// reader from reading the user's answers.
func (s *server) request(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
	cc := &s.clientCalls
	n := cc.seq.Add(1)
	id := jsonrpc2.NewNumberID(n)
	f, err := requestFrame(&n, method, params)
	if err != nil {
		return id, fmt.Errorf("marshaling call parameters: %w", err)
	}
	ch := make(chan *message, 1)
	cc.mu.Lock()
	cc.pending[id] = ch
	cc.mu.Unlock()
	defer func() {
		cc.mu.Lock()
		delete(cc.pending, id)
		cc.mu.Unlock()
	}()
	if err := s.out.send(f, false); err != nil {
		return id, fmt.Errorf("write to stream: %w", err)
	}
	done := s.awaitClient(ctx)
	var resp *message
	select {
	case resp = <-ch:
	case <-ctx.Done():
	}
	done()
	if resp == nil {
		return id, ctx.Err()
	}
	if resp.err != nil {
		return id, resp.err
	}
	if result == nil || len(resp.result) == 0 {
		return id, nil
	}
	if err := json.Unmarshal(resp.result, result); err != nil {
		return id, fmt.Errorf("unmarshaling result: %w", err)
	}
	return id, nil
}

// notify sends a notification to the client.
func (s *server) notify(_ context.Context, method string, params any) error {
	f, err := requestFrame(nil, method, params)
	if err != nil {
		return fmt.Errorf("marshaling notify parameters: %w", err)
	}
	if err := s.out.send(f, false); err != nil {
		return fmt.Errorf("write to stream: %w", err)
	}
	return nil
}
