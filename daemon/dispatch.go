package daemon

import (
	"context"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/protocol"
)

// method serves one kind of call, in its own goroutine.
type method func(ctx context.Context, params json.RawMessage) (any, error)

// methodTable lists the calls served concurrently once initialized.
// initialize and shutdown are not here: they change the connection's
// state, so they run in order on the read loop.
func (s *server) methodTable() map[string]method {
	return map[string]method{
		protocol.MethodToolsList:        s.toolsList,
		protocol.MethodToolsPrepare:     s.toolsPrepare,
		protocol.MethodToolsCall:        s.toolsCall,
		protocol.MethodUndoList:         s.undoList,
		protocol.MethodUndoUndo:         s.undoUndo,
		protocol.MethodUndoShow:         s.undoShow,
		protocol.MethodPermissionsList:  s.permissionsList,
		protocol.MethodPermissionsReset: s.permissionsReset,
		protocol.MethodStagedList:       s.stagedList,
		protocol.MethodStagedApply:      s.stagedApply,
		protocol.MethodStagedDrop:       s.stagedDrop,
	}
}

// handle is the connection's handler. It runs on the read loop, so it
// never blocks: notifications are cheap and handled here in arrival
// order; every call gets its own goroutine. It always returns nil: an
// error would end the connection.
func (s *server) handle(_ context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req := req.(type) {
	case *jsonrpc2.Notification:
		s.notification(req)
	case *jsonrpc2.Call:
		s.call(reply, req)
	}
	return nil
}

func (s *server) notification(n *jsonrpc2.Notification) {
	switch n.Method() {
	case protocol.MethodExit:
		s.mu.Lock()
		first := !s.sawExit
		s.sawExit, s.stopping = true, true
		s.mu.Unlock()
		if first {
			close(s.exited)
		}
	case protocol.MethodCancelRequest:
		s.cancel(n.Params())
	case protocol.MethodInitialized:
	case protocol.MethodDiagnosticsPublish:
		s.publishDiagnostics(n.Params())
	case protocol.MethodWorkspaceDirty:
		s.workspaceDirty(n.Params())
	default:
		s.logger.Debug("unknown notification ignored", "method", n.Method())
	}
}

func (s *server) call(reply jsonrpc2.Replier, c *jsonrpc2.Call) {
	name := c.Method()
	s.mu.Lock()
	state, stopping := s.state, s.stopping
	s.mu.Unlock()
	if stopping {
		return // exit arrived: the output is closing, nobody reads a reply
	}
	switch {
	case name == protocol.MethodInitialize:
		res, err := s.initialize(c.Params())
		s.reply(reply, name, res, err)
		return
	case state == stateNew:
		s.reply(reply, name, nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized,
			"Tether is not initialized yet: send initialize (with the workspace folders) before %s", name))
		return
	case name == protocol.MethodShutdown:
		s.mu.Lock()
		s.state = stateShutDown
		s.mu.Unlock()
		s.reply(reply, name, nil, nil)
		return
	case state == stateShutDown:
		s.reply(reply, name, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
			"Tether is shutting down (shutdown was received) and takes no new requests; send exit, then start a new daemon"))
		return
	}
	m, ok := s.methods[name]
	if !ok {
		s.reply(reply, name, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound,
			"method %q is not known to Tether; its methods are %s", name, strings.Join(s.methodNames(), ", ")))
		return
	}
	s.spawn(reply, c, m)
}

// spawn runs one call in its own goroutine, cancellable by its id.
func (s *server) spawn(reply jsonrpc2.Replier, c *jsonrpc2.Call, m method) {
	id, name := c.ID(), c.Method()
	ctx, cancel := context.WithCancel(s.base)
	s.mu.Lock()
	if s.stopping { // serving ended since call() looked
		s.mu.Unlock()
		cancel()
		return
	}
	if _, busy := s.running[id]; busy {
		s.mu.Unlock()
		cancel()
		s.reply(reply, name, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
			"request id %v is already in use by a request that is still running; use a new id for every request", id))
		return
	}
	s.running[id] = cancel
	s.calls.Add(1)
	s.mu.Unlock()

	go func() {
		defer s.calls.Done()
		start := time.Now()
		res, err := s.run(ctx, name, m, c.Params())
		s.mu.Lock()
		delete(s.running, id) // before replying, so the id is free when the client sees the reply
		s.mu.Unlock()
		cancel()
		s.logger.Debug("call", "method", name, "id", id, "took", time.Since(start), "err", err)
		s.reply(reply, name, res, err)
	}()
}

// run calls m, turning a panic into an internal error instead of a dead
// daemon, and a call cancelled before it began into RequestCancelled.
func (s *server) run(ctx context.Context, name string, m method, params json.RawMessage) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("method panicked", "method", name, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s failed with an internal error (%v); this is a bug in Tether", name, p)
		}
	}()
	if ctx.Err() != nil {
		return nil, jsonrpc2.NewError(lsp.CodeRequestCancelled, name+" was cancelled before it started; nothing was done")
	}
	return m(ctx, params)
}

// cancel handles $/cancelRequest: the call's context is cancelled, which
// stops its tool and the tool's processes; the call still replies.
func (s *server) cancel(raw json.RawMessage) {
	var p struct {
		ID *jsonrpc2.ID `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.ID == nil {
		s.logger.Warn("ignoring a $/cancelRequest without a usable id", "params", string(raw))
		return
	}
	s.mu.Lock()
	cancel := s.running[*p.ID]
	s.mu.Unlock()
	if cancel == nil {
		s.logger.Debug("cancel for a request that is not running", "id", *p.ID)
		return
	}
	s.logger.Debug("cancelling", "id", *p.ID)
	cancel()
}

func (s *server) reply(reply jsonrpc2.Replier, name string, res any, err error) {
	if werr := reply(context.Background(), res, err); werr != nil {
		s.logger.Warn("could not send a reply", "method", name, "err", werr)
	}
}

func (s *server) methodNames() []string {
	names := []string{protocol.MethodInitialize, protocol.MethodShutdown}
	for n := range s.methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// decodeParams decodes a call's params into v; a shape that does not fit
// is the client's fault, reported as InvalidParams naming the method.
func decodeParams(name string, raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", name, err)
	}
	return nil
}

func invalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}
