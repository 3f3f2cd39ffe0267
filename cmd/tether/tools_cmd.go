package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

func runTools(args []string) int { return toolsMain(args, osIO()) }

// toolsMain prints the registry: a table for people, or with --json the
// same []protocol.ToolInfo that a client gets from tools/list.
func toolsMain(args []string, cio cmdIO) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	asJSON := fs.Bool("json", false, "print the JSON list of tool descriptions, as tools/list returns them")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(cio.stderr, "tether tools: unexpected arguments %q; the only flag is --json\n", fs.Args())
		return 2
	}
	infos := tools.Builtin().Infos(nil)
	if *asJSON {
		enc := json.NewEncoder(cio.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(infos); err != nil {
			fmt.Fprintf(cio.stderr, "tether tools: %v\n", err)
			return 1
		}
		return 0
	}
	tw := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRISK\tPERMISSION\tDESCRIPTION")
	for _, t := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Risk, t.Permission, oneLine(t))
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(cio.stderr, "tether tools: %v\n", err)
		return 1
	}
	printUnavailable(cio, headlessEnv())
	return 0
}

// headlessEnv is what `tether call` can offer the tools: a terminal to ask
// the user and the project's stores (memory among them), no editor, no
// model. The store here is only a stand-in for the one a call opens.
func headlessEnv() *tool.Env {
	return &tool.Env{Capabilities: protocol.ClientCapabilities{AskUser: true}, Memory: &memory.Store{}}
}

// printUnavailable lists the tools a run like env cannot offer, and why.
func printUnavailable(cio cmdIO, env *tool.Env) {
	first := true
	for _, t := range tools.Builtin().Tools() {
		why, off := tool.Unavailable(t, env)
		if !off {
			continue
		}
		if first {
			fmt.Fprintln(cio.stdout, "\nUnavailable headless (tether call); offered where a client provides what they need:")
			first = false
		}
		fmt.Fprintf(cio.stdout, "  %s: %s\n", t.Name(), why)
	}
}

// oneLine is a tool's summary, cut to fit a table row.
func oneLine(t protocol.ToolInfo) string {
	s := t.Summary()
	const max = 80
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
