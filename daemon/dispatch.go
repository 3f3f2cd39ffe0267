package daemon

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"sort"

	"go.lsp.dev/jsonrpc2"
	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/protocol"
)

// method serves one kind of call, on a worker.
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
		protocol.MethodToolsResult:      s.toolsResult,
		protocol.MethodMemoryList:       s.memoryList,
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
	switch n.method {
	case protocol.MethodExit:
		s.mu.Lock()
		first := !s.sawExit
		s.sawExit, s.stopping = true, true
		s.mu.Unlock()
		if first {
			close(s.exited)
		}
	case protocol.MethodCancelRequest:
		s.cancel(n.params)
	case protocol.MethodInitialized:
	case protocol.MethodDiagnosticsPublish:
		s.publishDiagnostics(n.params)
	case protocol.MethodWorkspaceDirty:
		s.workspaceDirty(n.params)
	default:
		s.logger.Debug("unknown notification ignored", "method", n.method)
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
	case name == protocol.MethodInitialize:
		res, err := s.initialize(c.params)
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
func (s *server) cancel(raw json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		s.logger.Warn("ignoring a $/cancelRequest without a usable id", "params", string(raw))
		return
	}
	id, ok := requestID(p.ID)
	if !ok {
		s.logger.Warn("ignoring a $/cancelRequest without a usable id", "params", string(raw))
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
