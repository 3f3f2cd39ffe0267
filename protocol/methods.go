package protocol

import (
	"reflect"

	lsp "go.lsp.dev/protocol"
)

// Direction says which side sends a method.
type Direction int

const (
	ClientToDaemon Direction = iota + 1 // the editor (or any client) calls the daemon
	DaemonToClient                      // the daemon calls the client, where initialize said it can
	BothWays                            // either side sends it ($/cancelRequest)
	// MCPToApprover: tether mcp calls the approver of its project on the
	// approvals channel (see approvals.go), before the approval/request
	// or user/ask the approver answers there.
	MCPToApprover
)

func (d Direction) String() string {
	switch d {
	case ClientToDaemon:
		return "client → daemon"
	case DaemonToClient:
		return "daemon → client"
	case BothWays:
		return "both ways"
	case MCPToApprover:
		return "tether mcp → approver"
	}
	return "unknown direction"
}

// Request is a method that is answered: its params are a P, its result an
// R. Code that sends or serves one names the value, never the string, so
// a mismatched type does not compile.
type Request[P, R any] struct {
	Method string
	Dir    Direction
}

// Notification is a method that is not answered: its params are a P.
type Notification[P any] struct {
	Method string
	Dir    Direction
}

// Method is any entry of the table, its types given by reflection: what
// the generators and the tests read.
type Method interface {
	Name() string
	Direction() Direction
	// Params is the params' type; Result the result's, nil for a
	// notification.
	Params() reflect.Type
	Result() reflect.Type
}

func (m Request[P, R]) Name() string           { return m.Method }
func (m Request[P, R]) Direction() Direction   { return m.Dir }
func (m Request[P, R]) Params() reflect.Type   { return reflect.TypeFor[P]() }
func (m Request[P, R]) Result() reflect.Type   { return reflect.TypeFor[R]() }
func (m Notification[P]) Name() string         { return m.Method }
func (m Notification[P]) Direction() Direction { return m.Dir }
func (m Notification[P]) Params() reflect.Type { return reflect.TypeFor[P]() }
func (m Notification[P]) Result() reflect.Type { return nil }

// Lookup finds a method of the table by name.
func Lookup(name string) (Method, bool) {
	for _, m := range Methods {
		if m.Name() == name {
			return m, true
		}
	}
	return nil, false
}

// None is the params of a method that takes none: the client sends {},
// and whatever it sends is ignored.
type None struct{}

func (None) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }
func (*None) UnmarshalJSON([]byte) error  { return nil }

// Void is LSP's nothing: the params of shutdown and exit, which carry
// none, and the result of shutdown, which is null.
type Void struct{}

func (Void) MarshalJSON() ([]byte, error) { return []byte("null"), nil }
func (*Void) UnmarshalJSON([]byte) error  { return nil }

// The methods of the wire contract, each declared once. Their order is
// the order of the documentation.

// Initialize opens the session: the workspace folders, what the client can
// do, and the settings. Nothing else is served before it.
var Initialize = Request[InitializeParams, InitializeResult]{Method: MethodInitialize, Dir: ClientToDaemon}

// Initialized follows the answer to initialize, as in LSP.
var Initialized = Notification[None]{Method: MethodInitialized, Dir: ClientToDaemon}

// Shutdown asks the daemon to stop taking calls, as in LSP; exit follows.
var Shutdown = Request[Void, Void]{Method: MethodShutdown, Dir: ClientToDaemon}

// Exit ends the daemon, as in LSP: with status 0 after shutdown, 1 without.
var Exit = Notification[Void]{Method: MethodExit, Dir: ClientToDaemon}

// ToolsList lists the tools this session offers.
var ToolsList = Request[None, ToolsListResult]{Method: MethodToolsList, Dir: ClientToDaemon}

// ToolsPrepare previews a call without side effects: its title, and
// whether it would ask the user.
var ToolsPrepare = Request[ToolPrepareParams, ToolPrepareResult]{Method: MethodToolsPrepare, Dir: ClientToDaemon}

// ToolsCall runs one tool. A tool's own failure is a result with isError;
// a JSON-RPC error means the call itself was malformed.
var ToolsCall = Request[ToolCallParams, ToolCallResult]{Method: MethodToolsCall, Dir: ClientToDaemon}

// ToolsResult shows again a recent call's result, as the model was given it.
var ToolsResult = Request[ToolResultParams, ToolResultResult]{Method: MethodToolsResult, Dir: ClientToDaemon}

// UndoList lists the undo checkpoints, newest first.
var UndoList = Request[None, UndoListResult]{Method: MethodUndoList, Dir: ClientToDaemon}

// UndoUndo puts back every file a request changed.
var UndoUndo = Request[UndoParams, UndoResult]{Method: MethodUndoUndo, Dir: ClientToDaemon}

// UndoShow shows the diff undo would apply.
var UndoShow = Request[UndoShowParams, UndoShowResult]{Method: MethodUndoShow, Dir: ClientToDaemon}

// PermissionsList lists the saved "always" answers of the project.
var PermissionsList = Request[None, PermissionsListResult]{Method: MethodPermissionsList, Dir: ClientToDaemon}

// PermissionsReset forgets every saved "always" answer of the project.
var PermissionsReset = Request[None, PermissionsResetResult]{Method: MethodPermissionsReset, Dir: ClientToDaemon}

// PermissionsRemove forgets the saved "always" answers named, as
// permissions/list gave them.
var PermissionsRemove = Request[PermissionsRemoveParams, PermissionsRemoveResult]{Method: MethodPermissionsRemove, Dir: ClientToDaemon}

// StagedList lists the changes dryRun mode kept, oldest first.
var StagedList = Request[None, StagedListResult]{Method: MethodStagedList, Dir: ClientToDaemon}

// StagedApply writes staged changes, as one request with one undo checkpoint.
var StagedApply = Request[StagedParams, StagedApplyResult]{Method: MethodStagedApply, Dir: ClientToDaemon}

// StagedDrop forgets staged changes without writing them.
var StagedDrop = Request[StagedParams, StagedDropResult]{Method: MethodStagedDrop, Dir: ClientToDaemon}

// RequestsTurn names the request (chat turn) a tool call of a chat session
// belongs to. The editor names the session of each call, not its turn:
// the daemon keeps the rule that tells the turns apart, for the editor and
// for MCP clients alike.
var RequestsTurn = Request[TurnParams, TurnResult]{Method: MethodRequestsTurn, Dir: ClientToDaemon}

// MemoryList lists the project's memories.
var MemoryList = Request[None, MemoryListResult]{Method: MethodMemoryList, Dir: ClientToDaemon}

// DiagnosticsPublish replaces the editor's diagnostics of one file.
var DiagnosticsPublish = Notification[DiagnosticsPublishParams]{Method: MethodDiagnosticsPublish, Dir: ClientToDaemon}

// WorkspaceDirty says which files have unsaved changes in the editor, and
// which are open.
var WorkspaceDirty = Notification[WorkspaceDirtyParams]{Method: MethodWorkspaceDirty, Dir: ClientToDaemon}

// WorkspaceSaved says which files the user just saved in the editor, so
// that a stale-file refusal can name who changed them.
var WorkspaceSaved = Notification[WorkspaceSavedParams]{Method: MethodWorkspaceSaved, Dir: ClientToDaemon}

// CancelRequest cancels a call, as in LSP: the client cancels a running
// tools/call (which stops its processes); the daemon cancels a question
// to the user that nobody waits for any more.
var CancelRequest = Notification[CancelParams]{Method: MethodCancelRequest, Dir: BothWays}

// ApprovalRequest asks the user to allow one step of a call.
var ApprovalRequest = Request[ApprovalRequestParams, ApprovalRequestResult]{Method: MethodApprovalRequest, Dir: DaemonToClient}

// UserAsk puts a question to the user (the ask_user tool).
var UserAsk = Request[UserAskParams, UserAskResult]{Method: MethodUserAsk, Dir: DaemonToClient}

// TodoChanged carries the whole plan, each time it changes.
var TodoChanged = Notification[TodoChangedParams]{Method: MethodTodoChanged, Dir: DaemonToClient}

// ToolsActivity reports a call starting or ending, those of compose
// programs and sub-agents included.
var ToolsActivity = Notification[Activity]{Method: MethodToolsActivity, Dir: DaemonToClient}

// ModelChat asks the client for one model turn of a sub-agent.
var ModelChat = Request[ModelChatParams, ModelChatResult]{Method: MethodModelChat, Dir: DaemonToClient}

// ToolsInvoke asks the editor to run one tool call of a compose program,
// which reaches the daemon again as a tools/call of the same request.
var ToolsInvoke = Request[ToolInvokeParams, ToolCallResult]{Method: MethodToolsInvoke, Dir: DaemonToClient}

// LogMessage sends a line for the client's log, as in LSP.
var LogMessage = Notification[lsp.LogMessageParams]{Method: MethodLogMessage, Dir: DaemonToClient}

// Progress reports a long call's progress, as in LSP.
var Progress = Notification[lsp.ProgressParams]{Method: MethodProgress, Dir: DaemonToClient}

// Methods is every method of the wire contract.
var Methods = []Method{
	Initialize, Initialized, Shutdown, Exit,
	ToolsList, ToolsPrepare, ToolsCall, ToolsResult, RequestsTurn,
	UndoList, UndoUndo, UndoShow,
	PermissionsList, PermissionsReset, PermissionsRemove,
	StagedList, StagedApply, StagedDrop,
	MemoryList,
	DiagnosticsPublish, WorkspaceDirty, WorkspaceSaved, CancelRequest,
	ApprovalRequest, UserAsk, TodoChanged, ToolsActivity, ModelChat, ToolsInvoke,
	LogMessage, Progress,
	ApprovalsHello,
}

// ApprovalsHello opens a connection of the approvals channel: tether mcp
// says who asks, the approver (a tether serve relaying to its editor, or
// tether approvals) says who answers.
var ApprovalsHello = Request[ApprovalsHelloParams, ApprovalsHelloResult]{Method: MethodApprovalsHello, Dir: MCPToApprover}
