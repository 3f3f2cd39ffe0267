// Package layout holds no code: its test keeps the project's dependency
// arrows pointing one way, front ends first:
//
//	cmd/tether → daemon, internal/mcp → tools → internal/compose, internal/agent
//	→ internal/tool → undo, diagnostics and the other internal packages → protocol
//
// The test sorts every package into a layer and lists each arrow allowed
// between layers; any import that is not one of them fails it, so that a
// helper package never reaches back up into the tool framework, the tools,
// the daemon or the command line.
package layout
