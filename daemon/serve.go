// Package daemon is `tether serve`: one JSON-RPC 2.0 connection (LSP
// framing) over stdin and stdout, from initialize to exit. It decodes the
// wire, tracks the state of the connection, runs calls concurrently (at
// most maxCallsInFlight at once, so a slow tool never holds up a quick one
// and no client can make the daemon grow without bound), cancels calls on
// $/cancelRequest, and lends the tools a Host that asks the client for
// approvals.
//
// The tools and their guardrails live in package tools; this package only
// carries calls to them and their answers back.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/tools"
	"github.com/tether-dev/tether/undo"
)

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// without shutdown first; as in LSP, the process should then exit with
// status 1.
var ErrExitWithoutShutdown = errors.New("exit received without shutdown")

// Options configures Serve. Every field is optional.
type Options struct {
	// Version is reported in initialize's serverInfo.
	Version string
	// Registry is the tool set; nil means tools.Builtin(). Tests pass their own.
	Registry *tool.Registry
	// Log receives the daemon's log; nil discards it. Its level follows
	// initialize's settings.logLevel.
	Log *logging.Log
	// MaxMessageBytes caps one incoming message body; 0 means MaxMessageBytes.
	MaxMessageBytes int64
	// Approvals makes a daemon whose editor answers approvals also answer
	// the questions of `tether mcp` sessions of its project (see package
	// approvals), while the connection lasts.
	Approvals bool
}

// stopGrace is how long Serve waits, once it has cancelled the running
// calls, for them to return. Tools honour cancellation promptly; this only
// keeps one that does not from holding the process forever.
const stopGrace = 5 * time.Second

// Serve speaks the protocol on in and out until the client sends exit, in
// reaches its end, or ctx is cancelled. Then it cancels every running call
// and waits for them to return before it returns itself.
//
// It returns nil after shutdown and exit or at the end of input,
// ErrExitWithoutShutdown for an exit without shutdown, and ctx's error when
// ctx ended it. Serve closes in if in is an io.Closer; a read already
// blocked on in may still be pending when Serve returns after exit, and
// ends when in does.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	s := newServer(ctx, opts)
	maxBody := opts.MaxMessageBytes
	if maxBody <= 0 {
		maxBody = MaxMessageBytes
	}
	s.out = newOutbox(out, MaxQueuedOutput)
	st := newStream(in, s.out, maxBody, s.logger)
	go s.readLoop(st)
	s.logger.Info("serving", "version", opts.Version)

	var readErr error
	select {
	case readErr = <-s.readDone:
	case <-s.exited:
	case <-ctx.Done():
	}
	s.stop()
	s.approvals.Wait()
	s.closeServices()
	s.out.close()
	_ = st.Close()

	exited, shutDown := s.ending()
	switch {
	case ctx.Err() != nil:
		s.logger.Info("stopped", "reason", context.Cause(ctx))
		return ctx.Err()
	case exited && !shutDown:
		s.logger.Warn("exit without shutdown")
		return ErrExitWithoutShutdown
	case exited:
	default:
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			s.logger.Warn("input failed", "err", readErr)
			return fmt.Errorf("reading the client's messages: %w", readErr)
		}
	}
	s.logger.Info("stopped")
	return nil
}

// server is the state of one connection.
type server struct {
	version   string
	reg       *tool.Registry
	log       *logging.Log
	logger    *slog.Logger
	out       *outbox
	base      context.Context // parent of every call's context
	cancelAll context.CancelFunc

	mu       sync.Mutex
	state    connState
	stopping bool // exit arrived or serving ended: nothing new starts
	// env is set once, by initialize, on the read loop before any call
	// that uses it is started; calls read it without the lock.
	env *tool.Env

	// The calls in flight; see slots.go.
	slots slots

	// The daemon's own calls to the client, waiting for answers.
	clientCalls clientCalls

	methods     map[string]method
	notifiers   map[string]notifier
	methodsList string // the method names, for an unknown method's error
	sessions    sessions
	// turns gives the editor's tool calls their requests (chat turns).
	turns *tool.Turns
	// undo is the project's checkpoint store, opened by initialize.
	undo *undo.Store
	// stores are the project's stores, closed when serving ends.
	stores *stores.Stores
	// listenApprovals: see Options.Approvals; approvals is the channel's
	// server, waited for when serving ends.
	listenApprovals bool
	approvals       sync.WaitGroup

	exited  chan struct{} // closed when exit arrives
	sawExit bool
	// readDone receives the error that ended the input, from whichever
	// goroutine was reading then (see runInline).
	readDone chan error
}

// connState is where the connection is in its life, as in LSP.
type connState int

const (
	stateNew      connState = iota // before initialize
	stateRunning                   // initialized
	stateShutDown                  // shutdown received; waiting for exit
)

func newServer(ctx context.Context, opts Options) *server {
	reg := opts.Registry
	if reg == nil {
		reg = tools.Builtin()
	}
	log := opts.Log
	if log == nil {
		log = logging.Discard()
	}
	base, cancel := context.WithCancel(ctx)
	s := &server{
		version:         opts.Version,
		listenApprovals: opts.Approvals,
		reg:             reg,
		log:             log,
		logger:          log.Logger(),
		base:            base,
		cancelAll:       cancel,
		sessions:        sessions{m: map[string]*tool.Session{}},
		turns:           tool.NewTurns(tool.TurnGap, time.Now, newRequestID),
		clientCalls:     clientCalls{pending: map[jsonrpc2.ID]chan *message{}},
		exited:          make(chan struct{}),
		readDone:        make(chan error, 1),
	}
	s.slots.init(&s.mu, DefaultMaxCallsInFlight)
	s.methods = s.methodTable()
	s.notifiers = s.notificationTable()
	s.methodsList = strings.Join(s.methodNames(), ", ")
	return s
}

// stop refuses new calls, cancels the running and parked ones and waits
// for them (those on the reading goroutine too), and for the idle workers
// to end.
func (s *server) stop() {
	s.mu.Lock()
	s.stopping = true
	n := len(s.slots.jobs)
	s.slots.wake()
	s.mu.Unlock()
	if n > 0 {
		s.logger.Info("cancelling running calls", "count", n)
	}
	s.cancelAll()
	done := make(chan struct{})
	go func() {
		s.slots.running.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
		s.logger.Error("calls still running after cancellation; leaving them", "grace", stopGrace)
	}
}

// ending reports whether exit arrived, and whether shutdown came before it.
func (s *server) ending() (exited, shutDown bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sawExit, s.state == stateShutDown
}
