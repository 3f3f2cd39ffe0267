package protocol

// The approvals channel: how `tether mcp` puts its approvals and ask_user
// questions to the user through an editor or a terminal, when the MCP
// client cannot (or will not) show them.
//
// The approver listens and `tether mcp` connects: a `tether serve` whose
// editor answers approvals (it relays each question to the editor as
// approval/request or user/ask), or `tether approvals` in a terminal. One
// approver per project, on a local socket under the user's runtime folder
// (a named pipe on Windows), reachable by the same user only; nothing
// listens on TCP.
//
// A connection carries one question: `tether mcp` sends approvals/hello,
// then one approval/request (ApprovalRequestParams →
// ApprovalRequestResult) or user/ask (UserAskParams → UserAskResult), as
// JSON-RPC 2.0 requests, one JSON object a line, and closes. Closing the
// connection before the answer withdraws the question (the call was
// cancelled); the approver then closes its prompt.

// The approvals channel's own method, tether mcp → approver:
// MethodApprovalsHello opens a connection to an approver.
const (
	MethodApprovalsHello = "approvals/hello"
)

// ApproverKind says who answers on the approvals channel.
type ApproverKind string

const (
	ApproverEditor   ApproverKind = "editor"   // a tether serve relaying to its editor
	ApproverTerminal ApproverKind = "terminal" // tether approvals
)

// ApprovalsHelloParams says who asks.
type ApprovalsHelloParams struct {
	// Client names the MCP client whose tool call asks ("Claude Code").
	Client string `json:"client"`
	// PID is the asking tether mcp's process id.
	PID int `json:"pid"`
	// Version is the asking tether's version.
	Version string `json:"version,omitempty"`
	// Workspace is the asking session's primary workspace folder.
	Workspace string `json:"workspace"`
}

// ApprovalsHelloResult says who answers.
type ApprovalsHelloResult struct {
	Approver ApproverKind `json:"approver"`
	// Name names the approver for people ("VS Code", "tether approvals").
	Name string `json:"name"`
	PID  int    `json:"pid"`
}
