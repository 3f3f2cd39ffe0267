// Package protocol is the wire contract between the Tether daemon and its
// clients: JSON-RPC method names and the params and results they carry.
//
// Method names are a contract other programs rely on: extend, never rename.
// The extension's TypeScript types are generated from this package.
package protocol

import (
	"encoding/json"
	"strings"
	"time"

	lsp "go.lsp.dev/protocol"
)

// Client → daemon methods.
const (
	MethodInitialize         = "initialize"
	MethodInitialized        = "initialized"
	MethodShutdown           = "shutdown"
	MethodExit               = "exit"
	MethodToolsList          = "tools/list"
	MethodToolsPrepare       = "tools/prepare"
	MethodToolsCall          = "tools/call"
	MethodUndoList           = "undo/list"
	MethodUndoUndo           = "undo/undo"
	MethodUndoShow           = "undo/show"
	MethodDiagnosticsPublish = "diagnostics/publish"
	MethodWorkspaceDirty     = "workspace/dirty"
	MethodWorkspaceSaved     = "workspace/saved"
	MethodCancelRequest      = "$/cancelRequest"
	MethodPermissionsList    = "permissions/list"
	MethodPermissionsReset   = "permissions/reset"
	MethodPermissionsRemove  = "permissions/remove"
	MethodStagedList         = "staged/list"
	MethodStagedApply        = "staged/apply"
	MethodStagedDrop         = "staged/drop"
	MethodToolsResult        = "tools/result"
	MethodMemoryList         = "memory/list"
	MethodRequestsTurn       = "requests/turn"
)

// Daemon → client methods, sent only where initialize said the client can.
const (
	MethodApprovalRequest = "approval/request"
	MethodUserAsk         = "user/ask"
	MethodTodoChanged     = "todo/changed"
	MethodToolsActivity   = "tools/activity"
	MethodModelChat       = "model/chat"
	MethodToolsInvoke     = "tools/invoke"
	MethodLogMessage      = "window/logMessage"
	MethodProgress        = "$/progress"
)

// Mode is a permission mode, from initialize's settings.permissionMode or
// --mode headless: what may run without asking.
type Mode string

const (
	ModeDefault     Mode = "default"     // reads inside the workspace run; everything else asks
	ModeAcceptEdits Mode = "acceptEdits" // file changes inside the workspace run too
	ModePlan        Mode = "plan"        // read-only: every change is refused
	ModeBypass      Mode = "bypass"      // nothing asks
	ModeDryRun      Mode = "dryRun"      // changes are staged as diffs, not written
)

// Modes lists every permission mode in the order they are documented.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass, ModeDryRun}

// WorkspaceFolder is one root the tools work in, as in LSP.
type WorkspaceFolder struct {
	URI  lsp.DocumentURI `json:"uri"`
	Name string          `json:"name"`
}

// ClientInfo names the client, as in LSP.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ClientCapabilities says which daemon → client services the client offers.
type ClientCapabilities struct {
	// Diagnostics: the client publishes editor diagnostics (diagnostics/publish).
	Diagnostics bool `json:"diagnostics,omitempty"`
	// Approval: the client answers approval/request.
	Approval bool `json:"approval,omitempty"`
	// AskUser: the client answers user/ask.
	AskUser bool `json:"askUser,omitempty"`
	// Todo: the client shows todo/changed and tools/activity.
	Todo bool `json:"todo,omitempty"`
	// Models: the client answers model/chat with a language model it
	// serves, which sub-agents need.
	Models bool `json:"models,omitempty"`
	// InvokeTools: the client runs a compose program's tool calls through
	// the editor (tools/invoke), which shows each in the chat; each comes
	// back to the daemon as an ordinary tools/call of the same request.
	InvokeTools bool `json:"invokeTools,omitempty"`
}

// Settings are the daemon's configurable knobs, sent in initialize.
// Every field is optional; absent fields take the documented default.
type Settings struct {
	// PermissionMode is one of Modes; default "default".
	PermissionMode Mode `json:"permissionMode,omitempty"`
	// RgPath is the ripgrep binary to use; default: rg on PATH.
	RgPath string `json:"rgPath,omitempty"`
	// LogLevel is debug, info, warn or error; default info.
	LogLevel string `json:"logLevel,omitempty"`
	// TokenBudget is the default output budget, in tokens, for calls that name none.
	TokenBudget int `json:"tokenBudget,omitempty"`
	// UndoKeep is how many undo checkpoints are kept; default 20.
	UndoKeep int `json:"undoKeep,omitempty"`
	// ShellTimeout is the shell tool's default timeout in seconds; default 120.
	ShellTimeout int `json:"shellTimeout,omitempty"`
	// DiagnosticsSettleMs is how long a change waits at most for the
	// editor's fresh diagnostics, in milliseconds; default 3000, negative to
	// not wait. The wait ends as soon as fresh diagnostics arrive.
	DiagnosticsSettleMs int `json:"diagnosticsSettleMs,omitempty"`
	// AgentMaxTurns is how many model turns a sub-agent may take; default 30.
	AgentMaxTurns int `json:"agentMaxTurns,omitempty"`
	// MemoryMaxBytes caps one project memory, its frontmatter included, in
	// bytes; default 16384.
	MemoryMaxBytes int `json:"memoryMaxBytes,omitempty"`

	// WebAllowedHosts are hosts web_fetch reaches without asking:
	// "example.com" (exactly that host) or "*.example.com" (its subdomains
	// at any depth, not example.com itself).
	WebAllowedHosts []string `json:"webAllowedHosts,omitempty"`
	// WebPrivateHosts are hosts ("localhost") or networks ("127.0.0.1/32")
	// on loopback or private networks that web requests may reach; without
	// them such addresses are refused. They are fetched over http as given,
	// and still ask unless also in WebAllowedHosts.
	WebPrivateHosts []string `json:"webPrivateHosts,omitempty"`
	// WebSearchEndpoint is the URL of the HTML search endpoint; default
	// DuckDuckGo's.
	WebSearchEndpoint string `json:"webSearchEndpoint,omitempty"`
	// WebTimeout is the time limit of one fetch or search, in seconds; default 30.
	WebTimeout int `json:"webTimeout,omitempty"`
	// WebMaxBytes caps a fetched body, in bytes; default 10 MiB.
	WebMaxBytes int `json:"webMaxBytes,omitempty"`
	// BraveAPIKey, when set, makes web_search use the Brave Search API.
	BraveAPIKey string `json:"braveApiKey,omitempty"`

	// ComposeTimeout is how long a compose program may run, in seconds; default 60.
	ComposeTimeout int `json:"composeTimeout,omitempty"`
	// ComposeMemoryBytes is a compose program's memory limit; default 64 MB.
	ComposeMemoryBytes int `json:"composeMemoryBytes,omitempty"`
	// ComposeMaxCalls is how many tool calls a compose program may make; default 200.
	ComposeMaxCalls int `json:"composeMaxCalls,omitempty"`
	// MaxCallsInFlight is how many calls the daemon runs at once; more
	// wait their turn, and past a bound the daemon stops reading until one
	// ends. Default 16.
	MaxCallsInFlight int `json:"maxCallsInFlight,omitempty"`

	// WriteRoots are folders outside the workspace that file changes may
	// reach (a sibling repository), as absolute paths: confined like a
	// workspace folder (symlinks resolved, every write beneath the
	// folder's own handle), read without asking, changed with approval as
	// in the workspace. Default none.
	WriteRoots []string `json:"writeRoots,omitempty"`
	// ShellSandbox is how shell commands are confined: "auto" (the
	// default: the strongest level this machine passes: namespaces with
	// Landlock on Linux, Seatbelt on macOS), "landlock" (Landlock only:
	// confinement without the overlay) or "off" (commands run with all of
	// the user's rights). Windows has no sandbox.
	ShellSandbox string `json:"shellSandbox,omitempty"`
	// ShellWritablePaths are folders (or files) outside the workspace that
	// a sandboxed command may write, added to the built-in cache paths
	// (Go's, npm's, cargo's, pip's). Tether's own folders are never
	// writable.
	ShellWritablePaths []string `json:"shellWritablePaths,omitempty"`
}

// InitializeParams opens a session.
type InitializeParams struct {
	ProcessID        int                `json:"processId,omitempty"`
	ClientInfo       ClientInfo         `json:"clientInfo"`
	WorkspaceFolders []WorkspaceFolder  `json:"workspaceFolders"`
	Capabilities     ClientCapabilities `json:"capabilities"`
	Settings         *Settings          `json:"settings,omitempty"`
}

// ServerInfo names the daemon.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	ServerInfo ServerInfo `json:"serverInfo"`
	Tools      []ToolInfo `json:"tools"`
}

// Risk grades what a tool can do.
type Risk string

const (
	RiskLow    Risk = "low"    // no side effects outside the agent's own state
	RiskMedium Risk = "medium" // durable writes inside a confined store
	RiskHigh   Risk = "high"   // file writes, processes, the live web
)

// ToolInfo describes one tool to a client and to the model.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Risk        Risk            `json:"risk"`
	// Permission says in words when the tool asks, as DESIGN.md's table does.
	Permission string `json:"permission"`
	ReadOnly   bool   `json:"readOnly"`
	// UserDescription is a short phrase for people (the editor's tool picker).
	UserDescription string `json:"userDescription,omitempty"`
}

// Summary is the tool's description for people: UserDescription, else the
// first sentence of the description written for the model.
func (t ToolInfo) Summary() string {
	if t.UserDescription != "" {
		return t.UserDescription
	}
	s := t.Description
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// ToolsListResult answers tools/list.
type ToolsListResult struct {
	Tools []ToolInfo `json:"tools"`
}

// ToolCallParams runs one tool.
type ToolCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// RequestID names the chat turn; all changes under one id form one undo checkpoint.
	RequestID string `json:"requestId"`
	// TokenBudget caps the result's size, in tokens; absent means the default.
	TokenBudget int `json:"tokenBudget,omitempty"`
	// Session separates read records: a sub-agent with its own session id
	// cannot edit on the strength of another agent's reads. Empty is the main agent.
	Session string `json:"session,omitempty"`
}

// ToolCallResult is a tool's answer. A tool's own failure is IsError with a
// message that says what to do next; JSON-RPC errors are for protocol faults.
type ToolCallResult struct {
	Content    string `json:"content"`
	IsError    bool   `json:"isError"`
	Diff       string `json:"diff,omitempty"`
	Checkpoint string `json:"checkpoint,omitempty"`
}

// ToolPrepareParams asks for a side-effect-free preview of a call.
type ToolPrepareParams = ToolCallParams

// ToolPrepareResult previews a call.
type ToolPrepareResult struct {
	Title         string `json:"title"`
	Message       string `json:"message"`
	NeedsApproval bool   `json:"needsApproval"`
	Diff          string `json:"diff,omitempty"`
	// Approval is, when NeedsApproval, what the user would be asked, as
	// approval/request would show it (an edit's texts and hunks left out):
	// a client may ask it up front and answer the approval/request of the
	// call from that answer.
	Approval *ApprovalRequestParams `json:"approval,omitempty"`
}

// DiagnosticsPublishParams replaces the diagnostics of one file.
type DiagnosticsPublishParams struct {
	URI         lsp.DocumentURI  `json:"uri"`
	Diagnostics []lsp.Diagnostic `json:"diagnostics"`
}

// WorkspaceDirtyParams lists files with unsaved changes in the editor.
type WorkspaceDirtyParams struct {
	URIs []lsp.DocumentURI `json:"uris"`
	// Open lists the files the editor has open, the ones its language
	// servers check. A change then waits for fresh diagnostics only of
	// those and of files that had diagnostics before; absent, the client
	// does not say, and every file of a kind with diagnostics is waited for.
	Open []lsp.DocumentURI `json:"open,omitempty"`
}

// WorkspaceSavedParams lists files the user just saved in the editor
// (workspace/saved, a notification): a file that changed since the agent
// read it is then said to be the user's change.
type WorkspaceSavedParams struct {
	URIs []lsp.DocumentURI `json:"uris"`
}

// CancelParams is LSP's $/cancelRequest.
type CancelParams struct {
	ID json.RawMessage `json:"id"`
}

// ApprovalKind says what an approval is for; it picks how the editor shows
// it and what an "always" answer is scoped to.
type ApprovalKind string

const (
	ApprovalEdit    ApprovalKind = "edit"    // a file change, shown as a diff
	ApprovalShell   ApprovalKind = "shell"   // a command line; always: per program
	ApprovalFetch   ApprovalKind = "fetch"   // a web fetch; always: per host
	ApprovalOutside ApprovalKind = "outside" // a path outside the workspace; always: per folder
	ApprovalMemory  ApprovalKind = "memory"  // a project memory write
)

// Answer is the user's answer to an approval.
type Answer string

const (
	AnswerYes    Answer = "yes"    // this once
	AnswerAlways Answer = "always" // and from now on, within the request's alwaysScope
	AnswerSkip   Answer = "skip"   // carry on without this step
	AnswerNo     Answer = "no"     // stop
)

// ApprovalRequestParams asks the user to allow one step.
type ApprovalRequestParams struct {
	RequestID string       `json:"requestId"`
	Tool      string       `json:"tool"`
	Title     string       `json:"title"`
	Kind      ApprovalKind `json:"kind"`
	Path      string       `json:"path,omitempty"`
	Diff      string       `json:"diff,omitempty"`
	Original  string       `json:"original,omitempty"`
	Proposed  string       `json:"proposed,omitempty"`
	// Hunks are the diff's hunks, for an editor that lets the user keep
	// some and drop others; the answer names the kept ones by ID.
	Hunks   []Hunk `json:"hunks,omitempty"`
	Command string `json:"command,omitempty"`
	Host    string `json:"host,omitempty"`
	// URL is the full address of a fetch; Host is then the host the
	// permission rules judge (its real host, in IDNA ASCII form).
	URL string `json:"url,omitempty"`
	// Network is set when a command asks for network access.
	Network bool `json:"network,omitempty"`
	// Sandbox, for a command, says whether it runs in the sandbox; false
	// means with all of the user's rights.
	Sandbox *bool `json:"sandbox,omitempty"`
	// Description is the agent's own short account of what a command is
	// for, shown beside it; the command line is what runs.
	Description string `json:"description,omitempty"`
	// AlwaysScope says in words what "always" would allow from now on;
	// empty when "always" is not offered (the answer then counts as yes).
	AlwaysScope string `json:"alwaysScope"`
	// Untrusted lists what the request read from outside (web pages,
	// search results, commands that reached the network) before this step,
	// which writes project memory: its text may carry someone else's words.
	Untrusted []string `json:"untrusted,omitempty"`
	// From names who asks when it is not the client's own agent: the MCP
	// client whose call came through tether mcp ("Claude Code").
	From string `json:"from,omitempty"`
	// Files, when set, is a change set reviewed as one (kind "edit"): what
	// a command wrote, file by file in order, each with its own diff and
	// hunks. Diff is then all of them together. The answer is for the
	// whole set; its Files may keep only some hunks of a file, or leave a
	// file out.
	Files []FileChange `json:"files,omitempty"`
}

// FileChange is one file of a change set under review.
type FileChange struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Status is what happens to it: "created", "modified", "deleted",
	// "mode" (only its permissions), "link" (a symbolic link made or
	// changed), "folder" (a folder made, removed or its mode changed).
	Status string `json:"status"`
	Diff   string `json:"diff"`
	// Original and Proposed are the texts side by side, and Hunks the
	// diff's hunks, for a text file small enough to show; absent for
	// anything else, which Note describes ("binary, 2.1 MB").
	Original *string `json:"original,omitempty"`
	Proposed *string `json:"proposed,omitempty"`
	Hunks    []Hunk  `json:"hunks,omitempty"`
	Note     string  `json:"note,omitempty"`
}

// FileAnswer is the user's answer for one file of a change set.
type FileAnswer struct {
	Path string `json:"path"`
	// Skip leaves the file as it is: the command's change to it is not
	// applied.
	Skip bool `json:"skip,omitempty"`
	// Hunks, when present, are the IDs of the hunks kept; Content, when
	// present, is the text the user edited the proposal into.
	Hunks   []int   `json:"hunks,omitempty"`
	Content *string `json:"content,omitempty"`
}

// Hunk is one hunk of a change's diff, as offered for approval.
type Hunk struct {
	ID       int `json:"id"`
	OldStart int `json:"oldStart"`
	OldLines int `json:"oldLines"`
	NewStart int `json:"newStart"`
	NewLines int `json:"newLines"`
	// Lines are the hunk's lines, each starting with ' ', '+' or '-'.
	Lines []string `json:"lines"`
}

// ApprovalRequestResult is the user's answer. For an edit, Hunks (when
// present) lists the IDs of the hunks the user kept, and Content (when
// present) is the final text the user edited the proposal into; the daemon
// writes that and tells the model what the user changed.
type ApprovalRequestResult struct {
	Answer  Answer  `json:"answer"`
	Hunks   []int   `json:"hunks,omitempty"`
	Content *string `json:"content,omitempty"`
	// Files answers a change set file by file (see
	// ApprovalRequestParams.Files); a file it does not name is applied as
	// shown.
	Files []FileAnswer `json:"files,omitempty"`
}

// UserAskParams puts a question to the user.
type UserAskParams struct {
	Question      string   `json:"question"`
	Options       []string `json:"options"`
	AllowFreeText bool     `json:"allowFreeText"`
	// From names who asks when it is not the client's own agent (see
	// ApprovalRequestParams.From).
	From string `json:"from,omitempty"`
}

// UserAskResult is the user's answer, or Cancelled.
type UserAskResult struct {
	Answer    string `json:"answer,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
}

// TodoItem is one step of the plan.
type TodoItem struct {
	Text   string `json:"text"`
	Status string `json:"status"`
	// Activity is the tool calls made while this step was in progress.
	Activity []Activity `json:"activity,omitempty"`
}

// ActivityStatus is where a tool call stands.
type ActivityStatus string

const (
	ActivityRunning ActivityStatus = "running"
	ActivityOK      ActivityStatus = "ok"
	ActivityError   ActivityStatus = "error"
	ActivityRefused ActivityStatus = "refused" // the user or the permission mode said no
)

// Activity is one tool call starting or ending (tools/activity), including
// the calls a compose program or a sub-agent makes, which name the call
// they belong to in ParentCallID.
type Activity struct {
	RequestID    string         `json:"requestId"`
	CallID       string         `json:"callId"`
	ParentCallID string         `json:"parentCallId,omitempty"`
	Tool         string         `json:"tool"`
	Title        string         `json:"title"`
	Status       ActivityStatus `json:"status"`
	DurationMs   int64          `json:"durationMs,omitempty"`
	// Input, Output and Diff are the arguments (JSON), the result and the
	// diff of a call a program or a sub-agent made (one with a
	// ParentCallID), for the editor's history of it; each is cut to a
	// bounded size, marked where cut. Output and Diff come with the ending
	// report only.
	Input  string `json:"input,omitempty"`
	Output string `json:"output,omitempty"`
	Diff   string `json:"diff,omitempty"`
}

// ToolInvokeParams asks the client to run one tool call of a compose
// program through the editor (tools/invoke); the answer is the call's
// ToolCallResult.
type ToolInvokeParams struct {
	RequestID    string          `json:"requestId"`
	ParentCallID string          `json:"parentCallId"`
	CallID       string          `json:"callId"`
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
}

// ChatRole is who speaks in a model/chat message.
type ChatRole string

const (
	RoleUser      ChatRole = "user"
	RoleAssistant ChatRole = "assistant"
	RoleTool      ChatRole = "tool" // a tool's result, answering ToolCallID
)

// ChatToolCall is a tool call a model asked for.
type ChatToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ChatMessage is one message of a model/chat conversation.
type ChatMessage struct {
	Role       ChatRole       `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []ChatToolCall `json:"toolCalls,omitempty"`
	ToolCallID string         `json:"toolCallId,omitempty"`
}

// ChatTool is a tool offered to the model in a model/chat turn.
type ChatTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ModelChatParams asks the client for one model turn of a sub-agent.
type ModelChatParams struct {
	RequestID string        `json:"requestId"`
	Messages  []ChatMessage `json:"messages"`
	Tools     []ChatTool    `json:"tools"`
	MaxTokens int           `json:"maxTokens,omitempty"`
	// ModelHint names a model family the caller prefers; the client may
	// ignore it.
	ModelHint string `json:"modelHint,omitempty"`
}

// StopReason says why a model turn ended.
type StopReason string

const (
	StopEnd       StopReason = "end"       // the model finished its answer
	StopToolCalls StopReason = "toolCalls" // the model wants tools run
	StopLength    StopReason = "length"    // the turn hit maxTokens
)

// ChatUsage counts a turn's tokens.
type ChatUsage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// ModelChatResult is one model turn.
type ModelChatResult struct {
	Content    string         `json:"content"`
	ToolCalls  []ChatToolCall `json:"toolCalls"`
	StopReason StopReason     `json:"stopReason"`
	Usage      *ChatUsage     `json:"usage,omitempty"`
	// MaxInputTokens is the window of the model that answered, in tokens:
	// a sub-agent whose conversation outgrows it is stopped. Absent when
	// the client does not know it.
	MaxInputTokens int `json:"maxInputTokens,omitempty"`
}

// ToolResultParams names a call whose result the client wants to show
// again (tools/result): a row of the plan view the user clicked.
type ToolResultParams struct {
	CallID string `json:"callId"`
}

// ToolResultResult is a recent call's result, as the model was given it.
// The daemon keeps only the latest results of a connection.
type ToolResultResult struct {
	CallID  string `json:"callId"`
	Tool    string `json:"tool"`
	Title   string `json:"title"`
	Content string `json:"content"`
	IsError bool   `json:"isError"`
	Diff    string `json:"diff,omitempty"`
}

// TodoChangedParams carries the whole plan.
type TodoChangedParams struct {
	Items []TodoItem `json:"items"`
}

// Checkpoint is one request's undo checkpoint.
type Checkpoint struct {
	ID        string    `json:"id"`
	RequestID string    `json:"requestId"`
	Created   time.Time `json:"created"`
	Summary   string    `json:"summary"`
	Files     []string  `json:"files"`
	Undone    bool      `json:"undone"`
	// Damaged, when set, says that part of the checkpoint's record could
	// not be read: what it can still put back and what it cannot.
	Damaged string `json:"damaged,omitempty"`
	// Interrupted, when set, says that Tether stopped while it applied a
	// command's changes in this request: each file holds its old or its
	// new content, and undo puts back what was applied.
	Interrupted string `json:"interrupted,omitempty"`
}

// UndoListResult answers undo/list, newest first.
type UndoListResult struct {
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// UndoParams names a checkpoint; empty means the newest not yet undone.
type UndoParams struct {
	ID string `json:"id,omitempty"`
}

// Conflict is a file undo left alone, and why.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// UndoResult says what undo/undo put back.
type UndoResult struct {
	ID        string     `json:"id"`
	Restored  []string   `json:"restored"`
	Conflicts []Conflict `json:"conflicts"`
	// Replaced are restored files whose content Tether had not confirmed
	// writing; what they held is kept in the checkpoint (undo/show).
	Replaced []string `json:"replaced,omitempty"`
	// Damaged, when set, says that part of the checkpoint's record could
	// not be read, so the changes recorded there were not put back; the
	// files it names are also among the conflicts (damage that names none
	// is one conflict whose path is "checkpoint <id>").
	Damaged string `json:"damaged,omitempty"`
}

// UndoShowParams names a checkpoint.
type UndoShowParams struct {
	ID string `json:"id"`
}

// UndoShowResult is the diff undo would apply (or could not).
type UndoShowResult struct {
	Diff string `json:"diff"`
}

// PermissionRule is one saved "always" answer.
type PermissionRule struct {
	Kind    ApprovalKind `json:"kind"`
	Program string       `json:"program,omitempty"`
	// Subcommand narrows a command rule to one subcommand ("git status");
	// empty covers every subcommand.
	Subcommand string `json:"subcommand,omitempty"`
	// Network says whether a command rule covers runs with network access
	// (true) or only without (false); absent, both.
	Network     *bool     `json:"network,omitempty"`
	Host        string    `json:"host,omitempty"`
	Dir         string    `json:"dir,omitempty"`
	Added       time.Time `json:"added"`
	Description string    `json:"description"`
	// Disabled, when set, says why the rule allows nothing: it fails one
	// of the examples saved with it.
	Disabled string `json:"disabled,omitempty"`
}

// PermissionsListResult answers permissions/list.
type PermissionsListResult struct {
	Mode  Mode             `json:"mode"`
	Rules []PermissionRule `json:"rules"`
	// Path is the project's allow.json.
	Path string `json:"path"`
}

// PermissionsRemoveParams names saved rules to forget, as permissions/list
// gave them (kind, program, subcommand, network, host, dir).
type PermissionsRemoveParams struct {
	Rules []PermissionRule `json:"rules"`
}

// PermissionsRemoveResult answers permissions/remove.
type PermissionsRemoveResult struct {
	Removed int `json:"removed"`
}

// PermissionsResetResult answers permissions/reset.
type PermissionsResetResult struct {
	Removed int `json:"removed"`
}

// StagedChange is one change kept by dryRun mode.
type StagedChange struct {
	ID        string    `json:"id"`
	Created   time.Time `json:"created"`
	RequestID string    `json:"requestId,omitempty"`
	Tool      string    `json:"tool"`
	Title     string    `json:"title"`
	Diff      string    `json:"diff"`
	Files     []string  `json:"files"`
}

// StagedListResult answers staged/list, oldest first.
type StagedListResult struct {
	Staged []StagedChange `json:"staged"`
}

// StagedParams names staged changes; empty means all of them.
type StagedParams struct {
	IDs []string `json:"ids,omitempty"`
	// RequestID groups what staged/apply writes into one undo checkpoint.
	RequestID string `json:"requestId,omitempty"`
}

// StagedFailure is a staged change that could not be applied.
type StagedFailure struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// StagedApplyResult says what staged/apply wrote.
type StagedApplyResult struct {
	Applied    []string        `json:"applied"`
	Failed     []StagedFailure `json:"failed"`
	Checkpoint string          `json:"checkpoint,omitempty"`
}

// StagedDropResult says what staged/drop removed.
type StagedDropResult struct {
	Dropped []string `json:"dropped"`
}

// MemoryListResult answers memory/list: the project's memories (not the
// archived ones), newest first.
type MemoryListResult struct {
	// Dir is the project's memory folder.
	Dir      string       `json:"dir"`
	Memories []MemoryInfo `json:"memories"`
}

// MemoryInfo is one project memory, as listed.
type MemoryInfo struct {
	Name        string    `json:"name"`
	Path        string    `json:"path"`
	Type        string    `json:"type,omitempty"`
	Description string    `json:"description,omitempty"`
	Updated     time.Time `json:"updated"`
	// Source is where the content came from: "request <id>", or "web"
	// for a memory written after reading content from outside.
	Source string `json:"source,omitempty"`
	// Error says why the file cannot be read as a memory (a broken
	// frontmatter, with its line); it is left as the user wrote it.
	Error string `json:"error,omitempty"`
}

// TurnParams names the chat session a tool call comes from, for a client
// that knows the session but not where one turn of it ends.
type TurnParams struct {
	// Session is a key that stays the same for every call of one chat
	// session, and differs between sessions.
	Session string `json:"session"`
}

// TurnResult is the request a call of the session starting now belongs
// to: the session's current chat turn, or a new one when the session has
// paused between calls for two minutes or more. The call names it as its
// requestId, and its changes join that request's undo checkpoint.
type TurnResult struct {
	RequestID string `json:"requestId"`
}
