package tool

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// EnvConfig is what a front end (the daemon, tether call, tether mcp)
// brings to a session's environment. NewEnv makes the rest of it the same
// way for all three, so that a setting or a service added to Env reaches
// every front end.
type EnvConfig struct {
	Workspace *workspace.Workspace
	// Host reaches the user; nil: nobody can be asked.
	Host Host
	// Log receives infrastructure faults; nil discards them.
	Log          *slog.Logger
	Capabilities protocol.ClientCapabilities
	// Settings are the client's, from NewSettings.
	Settings Settings
	// Stores are the project's open stores (see OpenStores); nil: none, so
	// nothing is undoable and every step asks.
	Stores *stores.Stores
	// Editor says the client is an editor: it publishes diagnostics,
	// reports its unsaved files, and may show a call's result again
	// (tools/result).
	Editor bool
	// Requests is shared by the environments of one session that outlives
	// its workspace (MCP follows its client's roots); nil: a new one.
	Requests *Requests
	// Jobs is a job manager shared likewise; nil: the stores'.
	Jobs *shell.Jobs
}

// NewEnv makes a session's environment.
func NewEnv(c EnvConfig) *Env {
	e := &Env{
		Workspace:    c.Workspace,
		Host:         c.Host,
		Log:          c.Log,
		Capabilities: c.Capabilities,
		Settings:     c.Settings,
		Requests:     c.Requests,
		Changes:      NewChangeLog(),
		web:          &lazyWeb{},
	}
	if e.Requests == nil {
		e.Requests = NewRequests()
	}
	if c.Stores != nil {
		e.Attach(c.Stores)
	}
	if c.Jobs != nil {
		e.Jobs = c.Jobs
	}
	if c.Editor {
		e.Diagnostics = diagnostics.NewStore()
		e.Dirty = &diagnostics.Dirty{}
		e.Results = NewResults()
	}
	return e
}

// OpenWorkspace opens the workspace of folders with the settings' write
// roots (see workspace.AddWriteRoots), as every front end does.
func OpenWorkspace(folders []string, s *Settings) (*workspace.Workspace, error) {
	ws, err := workspace.New(folders...)
	if err != nil {
		return nil, err
	}
	if err := ws.AddWriteRoots(s.WriteRoots...); err != nil {
		ws.Close()
		return nil, fmt.Errorf("settings.writeRoots: %w", err)
	}
	return ws, nil
}

// OpenStores opens the stores of the project whose folders ws holds, as
// the settings ask (how many checkpoints undo keeps), with the advice a
// person needs when they cannot be opened. jobs opens the shell's job
// manager for background commands, which a short run leaves off.
func OpenStores(ws *workspace.Workspace, s *Settings, log *slog.Logger, jobs bool) (*stores.Stores, error) {
	// Undo puts files back in the write roots too.
	roots := append(ws.Paths(), ws.WriteRoots()...)
	return openStores(ws.Primary(), stores.Options{UndoKeep: s.UndoKeep, Jobs: jobs, Log: log, Roots: roots})
}

// lazyWeb holds an Env's web client, made on first use: most sessions
// never fetch a page, and its copies share it, pages and searches kept.
type lazyWeb struct {
	once   sync.Once
	client *web.Client
}

// Web is the web tools' client, made from Settings.Web on first use and
// shared by every call in this Env and its copies, so its pages and
// searches are kept for all of them. An Env not made by NewEnv has none.
func (e *Env) Web() *web.Client {
	if e.web == nil {
		panic("tool: this Env has no web client; make it with NewEnv")
	}
	e.web.once.Do(func() { e.web.client = web.New(e.Settings.Web) })
	return e.web.client
}
