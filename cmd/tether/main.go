// Command tether is the Tether daemon and its headless command line.
//
//	tether serve          speak JSON-RPC over stdio to an editor
//	tether mcp            serve the tools to MCP clients over stdio
//	tether approvals      answer tether mcp's questions in a terminal
//	tether call ...       run tool calls from the command line
//	tether tools [--json] print the tool registry
//	tether undo [ID]      put back a request's changes
//	tether checkpoints    list undo checkpoints
//	tether allow          list saved approvals, forget one or all
//	tether staged         review dry-run changes
//	tether trust          trust the project's test runners
//	tether memory         list, show, search or archive project memories
//	tether doctor         check ripgrep, folders and versions
//	tether version        print the version
package main

import (
	"fmt"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

type command struct {
	name, usage string
	run         func(args []string) int
}

var commands = []command{
	{"serve", "serve                   speak JSON-RPC 2.0 (LSP framing) on stdin/stdout", runServe},
	{"mcp", "mcp [--workspace DIR]   serve the tools over MCP on stdin/stdout (for MCP clients)", runMCP},
	{"approvals", "approvals               answer tether mcp's questions for this project in this terminal", runApprovals},
	{"call", "call [flags] TOOL JSON  run tool calls in one session and print the results", runCall},
	{"tools", "tools [--json]          print the tool registry", runTools},
	{"undo", "undo [ID]               put back a request's changes (default: the newest)", runUndo},
	{"checkpoints", "checkpoints [ID]        list undo checkpoints, or show one's diff", runCheckpoints},
	{"allow", "allow [--remove N|--reset] list the saved \"always\" answers, forget one or all", runAllow},
	{"staged", "staged [ACTION] [ID...] review dry-run changes: list, show, apply, drop", runStaged},
	{"trust", "trust [--off]           let this project's test runners run without asking", runTrust},
	{"memory", "memory [ACTION]         project memories: list, show NAME, search QUERY, archive NAME", runMemory},
	{"doctor", "doctor                  check ripgrep, XDG folders, versions", runDoctor},
	{"version", "version                 print the version", runVersion},
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:])
		}
	}
	fmt.Fprintf(os.Stderr, "tether: unknown command %q\n\n", args[0])
	usage()
	return 2
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tether COMMAND [ARGS]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintln(os.Stderr, "  "+c.usage)
	}
}
