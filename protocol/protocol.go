// Package protocol is the wire contract between the Tether daemon and its
// clients: JSON-RPC method names and the params and results they carry.
//
// Method names are a contract other programs rely on: extend, never rename.
// The extension's TypeScript types are generated from this package.
package protocol

import (
	"encoding/json"

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
	MethodCancelRequest      = "$/cancelRequest"
)

// Daemon → client methods, sent only where initialize said the client can.
const (
	MethodApprovalRequest = "approval/request"
	MethodUserAsk         = "user/ask"
	MethodTodoChanged     = "todo/changed"
	MethodLogMessage      = "window/logMessage"
	MethodProgress        = "$/progress"
)

// Permission modes, from initialize's settings.permissionMode or --mode headless.
const (
	ModeDefault     = "default"
	ModeAcceptEdits = "acceptEdits"
	ModePlan        = "plan"
	ModeBypass      = "bypass"
	ModeDryRun      = "dryRun"
)

// Modes lists every permission mode in the order they are documented.
var Modes = []string{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass, ModeDryRun}

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
	// Todo: the client shows todo/changed.
	Todo bool `json:"todo,omitempty"`
}

// Settings are the daemon's configurable knobs, sent in initialize.
// Every field is optional; absent fields take the documented default.
type Settings struct {
	// PermissionMode is one of Modes; default "default".
	PermissionMode string `json:"permissionMode,omitempty"`
	// RgPath is the ripgrep binary to use; default: rg on PATH.
	RgPath string `json:"rgPath,omitempty"`
	// LogLevel is debug, info, warn or error; default info.
	LogLevel string `json:"logLevel,omitempty"`
	// TokenBudget is the default output budget, in tokens, for calls that name none.
	TokenBudget int `json:"tokenBudget,omitempty"`
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
}

// DiagnosticsPublishParams replaces the diagnostics of one file.
type DiagnosticsPublishParams struct {
	URI         lsp.DocumentURI  `json:"uri"`
	Diagnostics []lsp.Diagnostic `json:"diagnostics"`
}

// WorkspaceDirtyParams lists files with unsaved changes in the editor.
type WorkspaceDirtyParams struct {
	URIs []lsp.DocumentURI `json:"uris"`
}

// CancelParams is LSP's $/cancelRequest.
type CancelParams struct {
	ID json.RawMessage `json:"id"`
}

// Approval kinds.
const (
	ApprovalEdit    = "edit"
	ApprovalShell   = "shell"
	ApprovalFetch   = "fetch"
	ApprovalOutside = "outside"
	ApprovalMemory  = "memory"
)

// Approval answers.
const (
	AnswerYes    = "yes"
	AnswerAlways = "always"
	AnswerSkip   = "skip"
	AnswerNo     = "no"
)

// ApprovalRequestParams asks the user to allow one step.
type ApprovalRequestParams struct {
	RequestID string `json:"requestId"`
	Tool      string `json:"tool"`
	Title     string `json:"title"`
	Kind      string `json:"kind"`
	Path      string `json:"path,omitempty"`
	Diff      string `json:"diff,omitempty"`
	Original  string `json:"original,omitempty"`
	Proposed  string `json:"proposed,omitempty"`
	// Hunks are the diff's hunks, for an editor that lets the user keep
	// some and drop others; the answer names the kept ones by ID.
	Hunks   []Hunk `json:"hunks,omitempty"`
	Command string `json:"command,omitempty"`
	Host    string `json:"host,omitempty"`
	// AlwaysScope says in words what "always" would allow from now on.
	AlwaysScope string `json:"alwaysScope"`
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
	Answer  string  `json:"answer"`
	Hunks   []int   `json:"hunks,omitempty"`
	Content *string `json:"content,omitempty"`
}

// UserAskParams puts a question to the user.
type UserAskParams struct {
	Question      string   `json:"question"`
	Options       []string `json:"options"`
	AllowFreeText bool     `json:"allowFreeText"`
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
}

// TodoChangedParams carries the whole plan.
type TodoChangedParams struct {
	Items []TodoItem `json:"items"`
}
