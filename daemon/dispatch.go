package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sort"

	"go.lsp.dev/jsonrpc2"
	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/internal/jsonscan"
	"github.com/tether-dev/tether/protocol"
)

// method serves one kind of call, on a worker: it decodes the params and
// runs the handler registered for the method (see handle).
type method func(ctx context.Context, params json.RawMessage) (any, error)

// methodTable lists the calls served concurrently once initialized, each
// registered by its declaration in the protocol, so that a handler whose
// params or result are not the method's does not compile. initialize and
// shutdown are not here: they change the connection's state, so they run
// in order on the read loop.
func (s *server) methodTable() map[string]method {
	t := map[string]method{}
	handle(t, protocol.ToolsList, s.toolsList)
	handle(t, protocol.ToolsPrepare, s.toolsPrepare)
	handle(t, protocol.ToolsCall, s.toolsCall)
	handle(t, protocol.ToolsResult, s.toolsResult)
	handle(t, protocol.RequestsTurn, s.requestsTurn)
	handle(t, protocol.UndoList, s.undoList)
	handle(t, protocol.UndoUndo, s.undoUndo)
	handle(t, protocol.UndoShow, s.undoShow)
	handle(t, protocol.PermissionsList, s.permissionsList)
	handle(t, protocol.PermissionsReset, s.permissionsReset)
	handle(t, protocol.PermissionsRemove, s.permissionsRemove)
	handle(t, protocol.StagedList, s.stagedList)
	handle(t, protocol.StagedApply, s.stagedApply)
	handle(t, protocol.StagedDrop, s.stagedDrop)
	handle(t, protocol.MemoryList, s.memoryList)
	return t
}

// handle registers h as the handler of request m in t. The params are
// decoded into a P before h runs; params that do not fit are the client's
// fault, answered with InvalidParams naming the method.
func handle[P, R any](t map[string]method, m protocol.Request[P, R], h func(context.Context, *P) (R, error)) {
	t[m.Method] = typed(m, h)
}

// typed makes h, the handler of request m, a method.
func typed[P, R any](m protocol.Request[P, R], h func(context.Context, *P) (R, error)) method {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(m.Method, raw, &p); err != nil {
			return nil, err
		}
		return h(ctx, &p)
	}
}

// notifier serves one kind of notification, on the read loop.
type notifier func(params json.RawMessage)

// notificationTable lists the notifications the client sends, each
// registered by its declaration in the protocol.
func (s *server) notificationTable() map[string]notifier {
	t := map[string]notifier{}
	on(t, s.logger, protocol.Exit, s.exit)
	on(t, s.logger, protocol.CancelRequest, s.cancel)
	on(t, s.logger, protocol.Initialized, func(*protocol.None) {})
	on(t, s.logger, protocol.DiagnosticsPublish, s.publishDiagnostics)
	on(t, s.logger, protocol.WorkspaceDirty, s.workspaceDirty)
	on(t, s.logger, protocol.WorkspaceSaved, s.workspaceSaved)
	return t
}

// on registers h as the handler of notification m in t. Nobody answers a
// notification, so params that do not fit are logged and dropped.
func on[P any](t map[string]notifier, log *slog.Logger, m protocol.Notification[P], h func(*P)) {
	t[m.Method] = func(raw json.RawMessage) {
		var p P
		if err := decode(raw, &p); err != nil {
			log.Warn(m.Method+" with unreadable params ignored", "err", err)
			return
		}
		h(&p)
	}
}

// readLoop reads the client's messages until the input ends, and sends
// the error that ended it to readDone. Notifications are cheap and handled
// here in arrival order, initialize and shutdown too (they change the
// connection's state). Every other call takes a slot and runs here, on
// the reading goroutine, so a quick call costs no hand-off to another
// goroutine or thread; one that runs longer than inlineFor hands the
// reading on to a new goroutine (see runInline), so the reader is never
// held up for long. The reader waits only when the calls waiting for a
// slot are too many (see slots), or for room in the outbox when the
// client does not read.
func (s *server) readLoop(st *stream) {
	for {
		m, err := st.Read()
		if err != nil {
			s.readDone <- err
			return
		}
		switch {
		case m.method == "":
			s.deliver(m)
		case m.rawID == nil:
			s.notification(m)
		default:
			if moved := s.call(m, st); moved {
				return // another goroutine reads now
			}
		}
	}
}

func (s *server) notification(n *message) {
	h, ok := s.notifiers[n.method]
	if !ok {
		s.logger.Debug("unknown notification ignored", "method", n.method)
		return
	}
	h(n.params)
}

// exit handles exit: serving ends (see Serve).
func (s *server) exit(*protocol.Void) {
	s.mu.Lock()
	first := !s.sawExit
	s.sawExit, s.stopping = true, true
	s.mu.Unlock()
	if first {
		close(s.exited)
	}
}

// call handles a request; it reports whether the reading moved to another
// goroutine while the call ran here.
func (s *server) call(c *message, st *stream) (moved bool) {
	name := c.method
	s.mu.Lock()
	state, stopping := s.state, s.stopping
	s.mu.Unlock()
	if stopping {
		return false // exit arrived: the output is closing, nobody reads a reply
	}
	switch {
	case name == protocol.Initialize.Method:
		res, err := typed(protocol.Initialize, s.initialize)(s.base, c.params)
		s.reply(c, res, err)
		return false
	case state == stateNew:
		s.reply(c, nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized,
			"Tether is not initialized yet: send initialize (with the workspace folders) before %s", name))
		return false
	case name == protocol.MethodShutdown:
		s.mu.Lock()
		s.state = stateShutDown
		s.mu.Unlock()
		// Ahead of every reply waiting: shutdown never queues behind calls.
		s.replyUrgent(c, nil, nil)
		return false
	case state == stateShutDown:
		s.reply(c, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
			"Tether is shutting down (shutdown was received) and takes no new requests; send exit, then start a new daemon"))
		return false
	}
	m, ok := s.methods[name]
	if !ok {
		s.reply(c, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound,
			"method %q is not known to Tether; its methods are %s", name, s.methodsList))
		return false
	}
	return s.admit(c, m, st)
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

// cancel handles $/cancelRequest (see cancelJob).
func (s *server) cancel(p *protocol.CancelParams) {
	id, ok := requestID(p.ID)
	if !ok {
		s.logger.Warn("ignoring a $/cancelRequest without a usable id", "id", string(p.ID))
		return
	}
	s.cancelJob(libraryID(id))
}

// reply sends the answer to call c.
func (s *server) reply(c *message, res any, err error) { s.send(c, res, err, false) }

// replyUrgent sends the answer ahead of every frame waiting to go out.
func (s *server) replyUrgent(c *message, res any, err error) { s.send(c, res, err, true) }

func (s *server) send(c *message, res any, err error, urgent bool) {
	f, ferr := replyFrame(c.rawID, res, err)
	if ferr != nil {
		s.logger.Error("could not encode a reply", "method", c.method, "err", ferr)
		f, ferr = replyFrame(c.rawID, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s failed: its result could not be encoded (%v); this is a bug in Tether", c.method, ferr))
		if ferr != nil {
			return
		}
	}
	if werr := s.out.send(f, urgent); werr != nil {
		s.logger.Warn("could not send a reply", "method", c.method, "err", werr)
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

// decodeParams decodes a call's params into *p (see decode); a shape that
// does not fit is the client's fault, reported as InvalidParams naming
// the method.
func decodeParams[P any](name string, raw json.RawMessage, p *P) error {
	if err := decode(raw, p); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", name, err)
	}
	return nil
}

// decode decodes a message's params into *p as encoding/json does; absent
// or null params leave it zero. The reader has checked the message, so
// they are decoded in one pass where jsonscan can (see jsonscan.Fields),
// and by encoding/json where it cannot be sure.
func decode[P any](raw json.RawMessage, p *P) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if f := jsonscan.For(reflect.TypeFor[P]()); f != nil && f.Decode(raw, p) {
		return nil
	}
	*p = *new(P)
	return json.Unmarshal(raw, p)
}

func invalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}
