// Package approvals is the local channel through which `tether mcp` puts
// its approvals and ask_user questions to an editor or a terminal, for MCP
// clients that cannot show them (or decline them unseen).
//
// The approver listens, one per project, and each question is one
// connection from `tether mcp`: approvals/hello, then one approval/request
// or user/ask, then the answer (see protocol/approvals.go). The approver
// is a `tether serve` whose editor answers approvals, or `tether
// approvals` in a terminal; whoever starts first holds the project's
// channel until it ends.
//
// The channel is the same user's only. On Unix it is a socket in an
// owner-only folder under the user's runtime folder ($XDG_RUNTIME_DIR, or
// an owner-only folder in the temporary folder where that is missing),
// mode 0600, and each side checks the other's user id (SO_PEERCRED on
// Linux, LOCAL_PEERCRED on macOS) before a byte of a question crosses it.
// A lock beside the socket tells a live approver from a crashed one, whose
// socket is replaced. On Windows it is a named pipe whose security
// descriptor admits the owner alone, and each side checks that the other
// process runs as the same user. Nothing listens on TCP.
package approvals
