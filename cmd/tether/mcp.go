package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/mcp"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// mcpOptions are the flags of `tether mcp`.
type mcpOptions struct {
	workspaces stringList
	mode       protocol.Mode
	quietGap   time.Duration
	rgPath     string
}

// runMCP serves the tools over the Model Context Protocol on stdin and
// stdout until the client closes stdin or a signal stops it.
func runMCP(args []string) int {
	opts, err := parseMCPArgs(args, osIO())
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		if !errors.Is(err, errUsageShown) {
			fmt.Fprintf(os.Stderr, "tether mcp: %v\n", err)
		}
		return 2
	}
	rg, err := search.LookRg(opts.rgPath)
	if err != nil && opts.rgPath != "" {
		fmt.Fprintf(os.Stderr, "tether mcp: --rg: %v\n", err)
		return 2
	}
	log := logging.Open(os.Stderr)
	defer log.Close()

	ctx, in, out, done := stdioServer()
	defer done()
	err = mcp.Serve(ctx, in, out, mcp.Options{
		Registry:   tools.Builtin(),
		Workspaces: opts.workspaces,
		Mode:       opts.mode,
		RgPath:     rg,
		QuietGap:   opts.quietGap,
		Version:    version,
		Log:        log.Logger(),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "tether mcp: %v\n", err)
		return 1
	}
	return 0
}

func parseMCPArgs(args []string, cio cmdIO) (mcpOptions, error) {
	var o mcpOptions
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	fs.Var(&o.workspaces, "workspace", "workspace folder `DIR` (repeatable; the first is the base of relative paths; default: the client's roots, else the current directory)")
	fs.StringVar((*string)(&o.mode), "mode", string(protocol.ModeDefault), "permission `MODE`: "+permission.ModeNames())
	fs.DurationVar(&o.quietGap, "quiet-gap", mcp.DefaultQuietGap, "calls with less than this `DURATION` between them form one request (one undo checkpoint)")
	fs.StringVar(&o.rgPath, "rg", "", "ripgrep binary `PATH` (default: rg on PATH)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: tether mcp [--workspace DIR]... [--mode MODE] [--quiet-gap DURATION]

Serves every Tether tool over the Model Context Protocol on stdin and stdout
(one JSON-RPC message a line), for MCP clients such as Claude Code, Codex,
Cursor or VS Code. Approvals and ask_user questions go to the client as
elicitation prompts; a client that cannot show them gets such steps refused.
Undo what a client did with tether undo.

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsageShown
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: tether mcp takes only flags", fs.Args())
	}
	if !permission.ValidMode(o.mode) {
		return o, fmt.Errorf("--mode %q is not a permission mode; use one of: %s", o.mode, permission.ModeNames())
	}
	if o.quietGap <= 0 {
		return o, fmt.Errorf("--quiet-gap %s: the gap must be longer than zero", o.quietGap)
	}
	return o, nil
}
