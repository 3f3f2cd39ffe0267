package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/mcp"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// mcpOptions are the flags of `tether mcp`.
type mcpOptions struct {
	workspaces     folderList
	quietGap       time.Duration
	approvals      mcp.ApprovalRoute
	instantDecline time.Duration
	printConfig    string
	// settings are what the flags set, as the editor would send them in
	// initialize.
	settings protocol.Settings
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
	if opts.printConfig != "" {
		return printConfigMain(opts, osIO())
	}
	// The log reaches the client as MCP log messages; stderr, which
	// clients show as warnings, gets errors only.
	log := logging.OpenQuiet(os.Stderr, slog.LevelError)
	defer log.Close()

	ctx, in, out, done := stdioServer()
	defer done()
	err = mcp.Serve(ctx, in, out, mcp.Options{
		Registry:   tools.Builtin(),
		Workspaces: opts.workspaces,
		Settings:   opts.settings,
		QuietGap:   opts.quietGap,
		Version:    version,
		Log:        log.Logger(),
		Approvals:  opts.approvals,
		// 0 on the command line turns the check off.
		InstantDecline: cmp.Or(opts.instantDecline, -1),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "tether mcp: %v\n", err)
		return 1
	}
	return 0
}

// mcpFlags are the flags of `tether mcp`, bound to o.
func mcpFlags(o *mcpOptions, cio cmdIO) *flag.FlagSet {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	fs.Var(&o.workspaces, "workspace", "workspace folder `DIR` (repeatable; the first is the base of relative paths; default: the client's roots, else the current directory)")
	settingsFlags(fs, &o.settings, false)
	fs.DurationVar(&o.quietGap, "quiet-gap", mcp.DefaultQuietGap, "calls with less than this `DURATION` between them form one request (one undo checkpoint)")
	fs.StringVar((*string)(&o.approvals), "approvals", string(mcp.RouteAuto), "where approvals and ask_user questions go, `ROUTE`: "+routeNames()+" (auto: the editor or tether approvals when one answers for the project, else the client)")
	fs.StringVar(&o.printConfig, "print-config", "", "print the configuration that registers tether mcp in `CLIENT` ("+strings.Join(mcpClients, ", ")+"), for the --workspace folders (default: the current folder), and exit")
	fs.DurationVar(&o.instantDecline, "instant-decline", mcp.DefaultInstantDecline, "a question the client declines faster than this `DURATION` was never shown; it is reported as such, not as the user's no (0: take every decline as the user's)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: tether mcp [--workspace DIR]... [--mode MODE] [--approvals ROUTE] [--settings JSON|@FILE] [--quiet-gap DURATION]
       tether mcp --print-config CLIENT [--workspace DIR]...

Serves every Tether tool over the Model Context Protocol on stdin and stdout
(one JSON-RPC message a line), for MCP clients such as Claude Code, Codex,
Cursor or VS Code. Approvals and ask_user questions go to the editor where
VS Code with the Tether extension has the project open, to tether approvals
where one runs in a terminal for the project, else to the client as
elicitation prompts; where none of them can ask, such steps are refused.
Undo what a client did with tether undo.

--print-config claude|codex|cursor|vscode prints what registers tether mcp
in that client, for the workspace given (default: the current folder).

flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func parseMCPArgs(args []string, cio cmdIO) (mcpOptions, error) {
	var o mcpOptions
	fs := mcpFlags(&o, cio)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsageShown
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: tether mcp takes only flags", fs.Args())
	}
	if _, err := checkSettings(fs, o.settings); err != nil {
		return o, err
	}
	if o.printConfig != "" && !slices.Contains(mcpClients, o.printConfig) {
		return o, fmt.Errorf("--print-config %q: the clients are %s", o.printConfig, strings.Join(mcpClients, ", "))
	}
	if !slices.Contains(mcp.ApprovalRoutes, o.approvals) {
		return o, fmt.Errorf("--approvals %q is not a route; use one of: %s", o.approvals, routeNames())
	}
	if o.instantDecline < 0 {
		return o, fmt.Errorf("--instant-decline %s: the duration cannot be negative", o.instantDecline)
	}
	if o.quietGap <= 0 {
		return o, fmt.Errorf("--quiet-gap %s: the gap must be longer than zero", o.quietGap)
	}
	return o, nil
}

// routeNames lists the --approvals routes.
func routeNames() string {
	names := make([]string, len(mcp.ApprovalRoutes))
	for i, r := range mcp.ApprovalRoutes {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// printConfigMain prints the snippet for opts.printConfig on stdout, and
// where it goes on stderr, so that stdout can be redirected into the file.
func printConfigMain(opts mcpOptions, cio cmdIO) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether mcp: finding this program's path: %v\n", err)
		return 1
	}
	folders := []string(opts.workspaces)
	if len(folders) == 0 {
		folders = []string{"."}
	}
	if err := printMCPConfig(cio.stdout, opts.printConfig, exe, folders); err != nil {
		fmt.Fprintf(cio.stderr, "tether mcp: %v\n", err)
		return 2
	}
	fmt.Fprintf(cio.stderr, "(for %s)\n", mcpClientFiles[opts.printConfig])
	return 0
}
