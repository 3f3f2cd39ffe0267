package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// earlyRecords bounds the records kept from before the client chose a
// log level; older ones are dropped.
const earlyRecords = 64

// clientLog is a slog.Handler that sends the server's log to the MCP
// client as log messages (notifications/message) at their own levels,
// from the level the client asks for (logging/setLevel) up. A client then
// shows them in its server log as what they are, where stderr lines would
// all look like warnings. Records logged before the client chose a level
// are kept, a few, and sent when it does.
type clientLog struct {
	st *clientLogState
	// text formats a record as one line, with this handler's attributes
	// and groups, into st.buf.
	text slog.Handler
}

type clientLogState struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ss    *sdk.ServerSession
	level slog.Level
	set   bool // the client chose a level
	early []earlyRecord
}

type earlyRecord struct {
	level slog.Level
	text  string
}

func newClientLog() *clientLog {
	st := &clientLogState{}
	text := slog.NewTextHandler(&st.buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			// The message carries its own level and the client its own
			// time.
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
				return slog.Attr{}
			}
			return a
		},
	})
	return &clientLog{st: st, text: text}
}

// Enabled keeps what the client asked for, and before it asked, info and
// up.
func (h *clientLog) Enabled(_ context.Context, l slog.Level) bool {
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	if h.st.set {
		return l >= h.st.level
	}
	return l >= slog.LevelInfo
}

func (h *clientLog) Handle(ctx context.Context, r slog.Record) error {
	st := h.st
	st.mu.Lock()
	st.buf.Reset()
	err := h.text.Handle(ctx, r)
	text := strings.TrimSpace(strings.TrimPrefix(st.buf.String(), "msg="))
	ss, set := st.ss, st.set
	if !set {
		if len(st.early) == earlyRecords {
			st.early = st.early[1:]
		}
		st.early = append(st.early, earlyRecord{r.Level, text})
	}
	st.mu.Unlock()
	if err != nil || !set || ss == nil {
		return err
	}
	return send(ss, r.Level, text)
}

func (h *clientLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &clientLog{st: h.st, text: h.text.WithAttrs(as)}
}

func (h *clientLog) WithGroup(name string) slog.Handler {
	return &clientLog{st: h.st, text: h.text.WithGroup(name)}
}

// send sends one log message. A notification, outside any request: a
// message about a call that was cancelled still reaches the client.
func send(ss *sdk.ServerSession, l slog.Level, text string) error {
	//lint:ignore SA1019 logging leaves the protocol only after 2026-07-28, and the clients in use read it today
	return ss.Log(context.Background(), &sdk.LoggingMessageParams{Logger: "tether", Level: mcpLevel(l), Data: text})
}

// mcpLevel is the MCP level of a slog level (slog has four, MCP eight).
func mcpLevel(l slog.Level) sdk.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}

// slogLevel is the slog level from which an MCP level asks for messages.
func slogLevel(l sdk.LoggingLevel) slog.Level {
	switch l {
	case "debug":
		return slog.LevelDebug
	case "info", "notice":
		return slog.LevelInfo
	case "warning":
		return slog.LevelWarn
	}
	return slog.LevelError
}

// follow watches the client choose its log level: from then on messages
// go out at that level and up, beginning with those kept from before.
func (h *clientLog) follow(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		p, ok := req.GetParams().(*sdk.SetLoggingLevelParams)
		if err != nil || method != "logging/setLevel" || !ok || p == nil {
			return res, err
		}
		ss, _ := req.GetSession().(*sdk.ServerSession)
		st := h.st
		st.mu.Lock()
		st.ss, st.level, st.set = ss, slogLevel(p.Level), true
		early := st.early
		st.early = nil
		st.mu.Unlock()
		for _, e := range early {
			if e.level >= slogLevel(p.Level) && ss != nil {
				_ = send(ss, e.level, e.text)
			}
		}
		return res, err
	}
}
