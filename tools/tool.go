// Package tools holds Tether's tools, their registry and the guardrails
// they share: read records, output caps, repeat detection and the change
// executor that every file-changing tool goes through.
//
// Tools never import the daemon. What they need from the outside world
// comes through Env and its Host, which the daemon and the CLI both
// implement.
package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// Host is what a tool may ask of whoever runs it: the editor over JSON-RPC,
// or a terminal headless.
type Host interface {
	// Approve asks the user to allow one step. It returns an error when
	// nobody can be asked; the caller then refuses the step.
	Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error)
	// Notify sends a notification to the client; headless it may be dropped.
	Notify(ctx context.Context, method string, params any) error
}

// Checkpointer saves a path's prior state before a request first changes
// it, so that the request can be undone. Nil means no undo store.
type Checkpointer interface {
	// Save records path's current state (bytes, mode, or absence) under
	// requestID, durably, before the change. It is called for every path a
	// change touches; recording a path twice keeps the first state.
	Save(requestID, path string) error
	// Wrote tells the store what Tether left at path, so undo can tell a
	// later change by someone else from its own.
	Wrote(requestID, path string) error
}

// Env is fixed for a connection (or one CLI run): where the workspace is and
// who to ask.
type Env struct {
	Workspace *workspace.Workspace
	Host      Host
	// Mode is the permission mode (protocol.Mode*).
	Mode string
	// RgPath is the ripgrep binary; empty means it was not found.
	RgPath string
	// DefaultBudget is the token budget for calls that name none.
	DefaultBudget int
	// Checkpoints, when set, makes every change undoable.
	Checkpoints Checkpointer
	Log         *slog.Logger
	// Capabilities are what the client said it can do in initialize.
	Capabilities protocol.ClientCapabilities
	// Diagnostics is the editor's diagnostics as the client publishes them;
	// nil when the client sends none.
	Diagnostics *diagnostics.Store
	// Dirty is the set of files with unsaved editor changes; nil means none known.
	Dirty *DirtyFiles
	// Staging keeps dryRun-mode changes until the user applies them.
	Staging *staging.Store
	// Rules are the project's saved "always" answers; nil means none.
	Rules *permission.Rules
	// SettleTime is how long a change waits for the editor to publish fresh
	// diagnostics for the files it changed: zero means DefaultSettleTime,
	// negative means do not wait.
	SettleTime time.Duration
	// Jobs runs shell commands and background jobs; whoever builds the Env
	// opens it (shell.OpenJobs) and closes it when the daemon stops, which
	// stops every command it started. Nil: commands still run in the
	// foreground, and background jobs are refused.
	Jobs *shell.Jobs
	// Trusted is the user's word that the project's own code may run: its
	// test runners then run without asking (shell.Trusted reads it).
	Trusted bool
	// ShellTimeout is the shell tool's default timeout; zero means
	// shell.DefaultTimeout (2 minutes).
	ShellTimeout time.Duration
}

// Asker is implemented by hosts that can put a question to the user (the
// editor's quick pick, a terminal prompt).
type Asker interface {
	Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error)
}

// Conditional is implemented by tools offered only in some environments
// (problems needs an editor that sends diagnostics).
type Conditional interface {
	Available(env *Env) bool
}

// Call is one invocation of a tool.
type Call struct {
	Name      string
	Args      json.RawMessage
	RequestID string
	Budget    Budget
	Session   *Session
	Env       *Env
	// Prepare is set when the caller only wants a preview: no side effects.
	Prepare bool
}

// Result is what a tool answers.
type Result struct {
	Content string
	IsError bool
	// Diff is the unified diff of what was written (or would be, in a preview).
	Diff string
	// NeedsApproval is set on previews of calls that would ask the user.
	NeedsApproval bool
	// Title is a short human label for previews ("Edit main.go").
	Title string
}

// Errorf makes an error result whose text tells the model what to do next.
func Errorf(format string, args ...any) Result {
	return Result{Content: sprintf(format, args...), IsError: true}
}

// Text makes a plain result.
func Text(s string) Result { return Result{Content: s} }

// Tool is one callable tool.
type Tool interface {
	Info() protocol.ToolInfo
	// Describe says in a few words what a call with these arguments will
	// do, for progress messages; it has no side effect.
	Describe(args json.RawMessage) string
	Run(ctx context.Context, c *Call) Result
}
