// Package tool is the framework every Tether tool is built on: the Tool
// interface and its typed declaration (Def), the Registry that lists and
// invokes tools, each agent's Session of read records, output budgets, the
// Host through which a tool reaches the user, and the change pipeline
// (Plan → Authorize → checkpoint → write) that every file change goes
// through. The tools themselves live in package tools, one file each.
//
// Two kinds of failure are kept apart. A tool's refusal (bad arguments, a
// stale file, no match) is a Result with IsError set and a message that
// tells the model what to do next; a guard shared by tools (a path outside
// the workspace, a file not read first) returns it as a Refusal error,
// which the Registry turns into that Result. A fault of the machine below
// the tool (an I/O error, a checkpoint that could not be written, a failed
// fsync) is any other Go error: the Registry logs it at error level with
// its operation and path and tells the model, in one honest sentence, that
// Tether failed.
package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// Host is what a tool may ask of whoever runs it: the editor over JSON-RPC,
// a terminal headless, an MCP client. Tools never name wire methods; each
// host turns these calls into whatever its client understands.
type Host interface {
	// Approve asks the user to allow one step. It returns an error when
	// nobody can be asked; the caller then refuses the step.
	Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error)
	// Ask puts a question to the user. It returns an error when nobody
	// can be asked.
	Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error)
	// PlanChanged shows the agent's plan; a host with nowhere to show it
	// drops it (the todo tool's result carries the plan too).
	PlanChanged(ctx context.Context, items []protocol.TodoItem)
	// Activity reports a tool call starting or ending, for a host that
	// shows what the agent is doing; others drop it.
	Activity(ctx context.Context, a protocol.Activity)
	// Chat asks the client's language model for one turn of a sub-agent.
	// It returns ErrNoModel when the client serves none.
	Chat(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error)
}

// ErrNobodyToAsk is what NoHost answers: no user can be reached.
var ErrNobodyToAsk = errors.New("nobody can be asked here")

// ErrNoModel is what a host answers to Chat when its client serves no
// language model.
var ErrNoModel = errors.New("the client serves no language model")

// NoHost is the host of a run where nobody can be asked: every approval
// and question fails, so the steps that need one are refused. Hosts that
// can do only some things embed it for the rest.
type NoHost struct{}

func (NoHost) Approve(context.Context, protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	return protocol.ApprovalRequestResult{}, ErrNobodyToAsk
}

func (NoHost) Ask(context.Context, protocol.UserAskParams) (protocol.UserAskResult, error) {
	return protocol.UserAskResult{}, ErrNobodyToAsk
}

func (NoHost) PlanChanged(context.Context, []protocol.TodoItem) {}

func (NoHost) Activity(context.Context, protocol.Activity) {}

func (NoHost) Chat(context.Context, protocol.ModelChatParams) (protocol.ModelChatResult, error) {
	return protocol.ModelChatResult{}, ErrNoModel
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
	// Abandon tells the store that the change Save was called for did not
	// happen (the write failed): a path saved only for it leaves the
	// checkpoint, so undo never lists a file that was not changed.
	Abandon(requestID, path string) error
}

// Settings are the knobs of a connection (or one CLI run) that change how
// tools behave, made from the client's settings by NewSettings, which
// fills in every default. A zero field of Settings made otherwise (a
// test's) means its default too: the accessors apply them, and tool
// descriptions are rendered from the same accessors, so a description
// never states a number the code does not use.
type Settings struct {
	// Mode is the permission mode; empty means protocol.ModeDefault.
	Mode protocol.Mode
	// RgPath is the ripgrep binary; empty means it was not found, and
	// RgErr, when set, says why.
	RgPath string
	RgErr  error
	// LogLevel is the log level the client asked for; empty leaves the
	// front end's (TETHER_LOG_LEVEL, else DefaultLogLevel).
	LogLevel string
	// TokenBudget is the output budget of calls that name none.
	TokenBudget int
	// UndoKeep is how many undo checkpoints the project keeps.
	UndoKeep int
	// SettleTime is how long a change waits for the editor to publish fresh
	// diagnostics for the files it changed; negative means do not wait.
	SettleTime time.Duration
	// ShellTimeout is the shell tool's default timeout.
	ShellTimeout time.Duration
	// AgentMaxTurns is how many model turns a sub-agent may take.
	AgentMaxTurns int
	// MemoryMaxBytes caps one project memory, frontmatter included.
	MemoryMaxBytes int
	// Web is the web tools' settings: allowed and private hosts, limits,
	// the search engine.
	Web web.Config
	// Compose bounds compose programs; zero fields take compose's defaults.
	Compose ComposeSettings
	// MaxCallsInFlight is how many calls the daemon runs at once.
	MaxCallsInFlight int
	// WriteRoots are the real paths of folders outside the workspace that
	// changes may reach; each front end adds them to its workspace
	// (workspace.AddWriteRoots).
	WriteRoots []string
	// Sandbox is how shell commands are confined.
	Sandbox SandboxSettings
}

// SandboxSettings are the shell sandbox's settings.
type SandboxSettings struct {
	// Mode is shellSandbox: auto (""), landlock or off.
	Mode string
	// Writable are shellWritablePaths: more paths a sandboxed command may
	// write, beside the built-in caches.
	Writable []string
}

// ComposeSettings are the compose limits a client may change.
type ComposeSettings struct {
	Timeout     time.Duration
	MemoryBytes int
	MaxCalls    int
	// MaxSteps bounds a program's evaluation steps; zero is compose's
	// default. No client sets it: it lets a test reach the limit quickly
	// where the engine runs slowly (the race detector).
	MaxSteps int
}

// PermissionMode is the mode in force.
func (s *Settings) PermissionMode() protocol.Mode {
	if s == nil || s.Mode == "" {
		return protocol.ModeDefault
	}
	return s.Mode
}

// Budget is the default budget of a call.
func (s *Settings) Budget() Budget {
	if s == nil {
		return NewBudget(0, 0)
	}
	return NewBudget(0, s.TokenBudget)
}

// DefaultSettleTime is how long a change waits at most for the editor's
// fresh diagnostics when the settings name no other. The wait ends as soon
// as they come; a language server on a busy machine can take well over a
// second after the write.
const DefaultSettleTime = 3000 * time.Millisecond

// Settle is how long a change waits for fresh diagnostics; negative: not at all.
func (s *Settings) Settle() time.Duration {
	if s == nil || s.SettleTime == 0 {
		return DefaultSettleTime
	}
	return s.SettleTime
}

// ShellDefaultTimeout is the shell tool's timeout when a call names none.
func (s *Settings) ShellDefaultTimeout() time.Duration {
	if s == nil || s.ShellTimeout <= 0 {
		return shell.DefaultTimeout
	}
	return s.ShellTimeout
}

// DefaultAgentMaxTurns is how many model turns a sub-agent may take when
// the settings name no other.
const DefaultAgentMaxTurns = 30

// AgentTurns is how many model turns a sub-agent may take.
func (s *Settings) AgentTurns() int {
	if s == nil || s.AgentMaxTurns <= 0 {
		return DefaultAgentMaxTurns
	}
	return s.AgentMaxTurns
}

// MemoryMax is the size cap of one project memory, in bytes.
func (s *Settings) MemoryMax() int {
	if s == nil || s.MemoryMaxBytes <= 0 {
		return memory.DefaultMaxBytes
	}
	return s.MemoryMaxBytes
}

// Env is fixed for a connection (or one CLI run): where the workspace is,
// who to ask, the settings, and the project's stores.
type Env struct {
	Workspace *workspace.Workspace
	// Host reaches the user; nil means nobody can be asked (NoHost).
	Host Host
	// Log receives infrastructure faults; nil discards them.
	Log *slog.Logger
	// Capabilities are what the client said it can do in initialize.
	Capabilities protocol.ClientCapabilities
	Settings     Settings

	// The project's stores (see package stores). Each may be nil: without
	// Checkpoints no change is undoable, without Rules every step asks,
	// without Staging dryRun refuses changes, without Jobs background
	// commands are refused.
	Checkpoints Checkpointer
	Rules       *permission.Rules
	Staging     *staging.Store
	Jobs        *shell.Jobs
	// Layers is the project's state folder, under which a sandboxed
	// command's overlay layers are made (see package overlay). Empty:
	// commands are not captured, so a sandboxed command asks before it
	// runs as any other does (its writes would go straight to the
	// workspace).
	Layers string
	// Memory is the project's memory folder; without it the memory tools
	// are not offered. Changes to its files are memory writes: medium
	// risk, never "outside the workspace".
	Memory *memory.Store
	// Trusted is the user's word that the project's own code may run: its
	// test runners then run without asking.
	Trusted bool

	// What the editor knows: its diagnostics (nil when the client sends
	// none) and its files with unsaved changes.
	Diagnostics *diagnostics.Store
	Dirty       *diagnostics.Dirty

	// Requests remembers what each request has read from outside (the
	// web), which later calls of the same request must answer for.
	Requests *Requests
	// Changes remembers who changed which file (Tether's writes, changing
	// calls, the editor's saves), for a stale-file refusal to say; nil
	// knows nothing.
	Changes *ChangeLog
	// Results keeps the latest calls' results for a client that shows
	// them again (tools/result); nil keeps none.
	Results *Results

	// web is the web tools' client, made on first use and shared by the
	// copies of this Env (a sub-agent's); NewEnv sets it up.
	web *lazyWeb
}

// Attach lends a project's open stores to the Env.
func (e *Env) Attach(st *stores.Stores) {
	e.Checkpoints = st.Undo
	e.Rules = st.Rules
	e.Staging = st.Staging
	e.Trusted = st.Trusted
	e.Memory = st.Memory
	e.Layers = st.StateDir
	if st.Jobs != nil {
		e.Jobs = st.Jobs
	}
}

// openStores opens the stores of the project rooted at root, with the
// advice a person needs when they cannot be opened.
func openStores(root string, o stores.Options) (*stores.Stores, error) {
	st, err := stores.Open(root, o)
	if err != nil {
		return nil, fmt.Errorf("%w; Tether does not change files it cannot undo. Check the XDG state folder with tether doctor", err)
	}
	return st, nil
}

// host is the Env's host, never nil.
func (e *Env) host() Host {
	if e == nil || e.Host == nil {
		return NoHost{}
	}
	return e.Host
}

// logger is the Env's logger, never nil.
func (e *Env) logger() *slog.Logger {
	if e == nil || e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}

// Mode is the permission mode in force.
func (e *Env) Mode() protocol.Mode { return e.Settings.PermissionMode() }

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
	// ID names the call in activity reports; the registry makes one up
	// when the caller gives none. ParentID is the call that made this one
	// (a sub-agent's or a program's), empty for a call of the agent itself.
	ID       string
	ParentID string
	// Registry is the registry running the call, set by Invoke, so that a
	// call may run others (a sub-agent's turns).
	Registry *Registry

	// refused is set when the permission mode or the user said no to a
	// step of the call.
	refused bool
	// declined is set when the user answered skip or no: the call did not
	// happen, so it does not count toward the repeat guard.
	declined bool
	// Asks is, in a preview, the first step the call would ask the user
	// about, as the approval would show it (without the texts of an edit).
	Asks *protocol.ApprovalRequestParams
}

// Host is who the call may ask; never nil.
func (c *Call) Host() Host { return c.Env.host() }

// MarkUntrusted records that this call's request read content from
// source, outside the user's control (a web page, search results).
func (c *Call) MarkUntrusted(source string) { c.Env.Requests.MarkUntrusted(c.RequestID, source) }

// Untrusted lists what this call's request has read from outside.
func (c *Call) Untrusted() []string { return c.Env.Requests.Untrusted(c.RequestID) }

// Log is the call's logger, tagged with the tool and request; never nil.
func (c *Call) Log() *slog.Logger {
	return c.Env.logger().With("tool", c.Name, "request", c.RequestID)
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
	// Status says what became of the change the call asked for, where the
	// call got as far as a change: written, staged, declined, skipped,
	// refused, failed. Empty for a call that asked for no change, or one
	// refused before it got that far (a bad argument, a stale file), whose
	// IsError then says it did not happen.
	Status protocol.ChangeStatus
}

// WithStatus is r with its Status set.
func (r Result) WithStatus(s protocol.ChangeStatus) Result {
	r.Status = s
	return r
}

// Unchanged makes the result of a change that had nothing to do: the file
// already holds what was asked.
func Unchanged(msg string) Result {
	return Result{Content: msg, Status: protocol.StatusUnchanged}
}

// Failf makes the result of a call that did not do what was asked, whose
// text tells the model what to do next.
func Failf(format string, args ...any) Result {
	if len(args) == 0 {
		return Result{Content: format, IsError: true}
	}
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Text makes a plain result.
func Text(s string) Result { return Result{Content: s} }

// Cancelled is the result of a call stopped by its caller.
func Cancelled(what string) Result {
	return Failf("%s was cancelled; no partial result is returned", what)
}

// Tool is one callable tool.
type Tool interface {
	// Name is the tool's name, as the model calls it.
	Name() string
	// Info describes the tool to a client, its description rendered with
	// the numbers s puts in force.
	Info(s *Settings) protocol.ToolInfo
	// Describe says in a few words what a call with these arguments will
	// do, for progress messages; it has no side effect.
	Describe(args json.RawMessage) string
	// Run does the call. A refusal or a mistake of the model is a Result
	// with IsError, or a Refusal error; any other error is a fault below
	// the tool, which the Registry logs. A Result returned with an error,
	// when it has content, is what the model is told about it.
	Run(ctx context.Context, c *Call) (Result, error)
}
