package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
)

// The commands in this file act on a project's stores from a terminal:
// the same checkpoints, rules and staged changes the editor sees.

func runUndo(args []string) int        { return undoMain(args, osIO()) }
func runCheckpoints(args []string) int { return checkpointsMain(args, osIO()) }
func runAllow(args []string) int       { return allowMain(args, osIO()) }
func runStaged(args []string) int      { return stagedMain(args, osIO()) }
func runTrust(args []string) int       { return trustMain(args, osIO()) }

// projectFlags parses the flags every project command takes.
type projectFlags struct {
	fs        *flag.FlagSet
	workspace string
	json      bool
}

func newProjectFlags(name, usage string, cio cmdIO) *projectFlags {
	p := &projectFlags{fs: flag.NewFlagSet("tether "+name, flag.ContinueOnError)}
	p.fs.SetOutput(cio.stderr)
	p.fs.StringVar(&p.workspace, "workspace", ".", "the project's folder")
	p.fs.BoolVar(&p.json, "json", false, "print JSON")
	p.fs.Usage = func() {
		fmt.Fprintf(cio.stderr, "usage: tether %s\n\nflags:\n", usage)
		p.fs.PrintDefaults()
	}
	return p
}

// open parses args and opens the project's stores.
func (p *projectFlags) open(args []string, cio cmdIO) (*stores.Stores, *workspace.Workspace, int) {
	if err := p.fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, nil, 0
		}
		return nil, nil, 2
	}
	ws, err := workspace.New(p.workspace)
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether %s: %v\n", p.fs.Name()[len("tether "):], err)
		return nil, nil, 2
	}
	st, err := tool.OpenStores(ws.Primary(), stores.Options{Log: cliLogger(cio.stderr)})
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether %s: %v\n", p.fs.Name()[len("tether "):], err)
		return nil, nil, 1
	}
	return st, ws, -1
}

func printJSON(cio cmdIO, v any) {
	enc := json.NewEncoder(cio.stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func undoMain(args []string, cio cmdIO) int {
	p := newProjectFlags("undo", "undo [--workspace DIR] [CHECKPOINT]  (default: the newest not yet undone)", cio)
	st, _, code := p.open(args, cio)
	if code >= 0 {
		return code
	}
	defer st.Close()
	rep, err := st.Undo.Undo(p.fs.Arg(0))
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether undo: %v\n", err)
		return 1
	}
	if p.json {
		printJSON(cio, rep)
		return 0
	}
	fmt.Fprintf(cio.stdout, "Undid checkpoint %s.\n", rep.ID)
	if rep.Damaged != "" {
		fmt.Fprintf(cio.stdout, "  DAMAGED: %s.\n", rep.Damaged)
	}
	for _, f := range rep.Restored {
		fmt.Fprintf(cio.stdout, "  restored  %s\n", f)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(cio.stdout, "  left alone %s: %s\n", c.Path, c.Reason)
	}
	if len(rep.Conflicts) > 0 {
		fmt.Fprintf(cio.stdout, "What could not be put back is kept: tether checkpoints %s shows it.\n", rep.ID)
	}
	return 0
}

func checkpointsMain(args []string, cio cmdIO) int {
	p := newProjectFlags("checkpoints", "checkpoints [--workspace DIR] [--json] [CHECKPOINT]  (with an id: its diff)", cio)
	st, _, code := p.open(args, cio)
	if code >= 0 {
		return code
	}
	defer st.Close()
	if id := p.fs.Arg(0); id != "" {
		d, err := st.Undo.Show(id)
		if err != nil {
			fmt.Fprintf(cio.stderr, "tether checkpoints: %v\n", err)
			return 1
		}
		fmt.Fprint(cio.stdout, d)
		return 0
	}
	cps, err := st.Undo.List()
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether checkpoints: %v\n", err)
		return 1
	}
	if p.json {
		printJSON(cio, cps)
		return 0
	}
	if len(cps) == 0 {
		fmt.Fprintln(cio.stdout, "No checkpoints yet: every request that changes files leaves one.")
		return 0
	}
	for _, c := range cps {
		state := ""
		if c.Undone {
			state = " (undone)"
		}
		fmt.Fprintf(cio.stdout, "%s  %s  %s%s\n", c.ID, c.Created.Local().Format("2006-01-02 15:04"), c.Summary, state)
	}
	return 0
}

func allowMain(args []string, cio cmdIO) int {
	p := newProjectFlags("allow", "allow [--workspace DIR] [--reset]  (list or clear the saved \"always\" answers)", cio)
	reset := p.fs.Bool("reset", false, "forget every saved \"always\" answer")
	st, ws, code := p.open(args, cio)
	if code >= 0 {
		return code
	}
	defer st.Close()
	rules := st.Rules.List()
	if *reset {
		if err := st.Rules.Reset(); err != nil {
			fmt.Fprintf(cio.stderr, "tether allow: %v\n", err)
			return 1
		}
		fmt.Fprintf(cio.stdout, "Forgot %d saved answer(s); every step asks again.\n", len(rules))
		return 0
	}
	if p.json {
		printJSON(cio, rules)
		return 0
	}
	if len(rules) == 0 {
		fmt.Fprintf(cio.stdout, "No saved \"always\" answers for %s.\n", ws.Primary())
		return 0
	}
	fmt.Fprintf(cio.stdout, "Saved \"always\" answers (%s):\n", stores.RulesPath(ws.Primary()))
	for _, r := range rules {
		fmt.Fprintf(cio.stdout, "  always %s  (since %s)\n", r, r.Added.Local().Format("2006-01-02"))
	}
	return 0
}

func stagedMain(args []string, cio cmdIO) int {
	p := newProjectFlags("staged", "staged [--workspace DIR] [list | show ID | apply [ID...] | drop [ID...]]", cio)
	st, ws, code := p.open(args, cio)
	if code >= 0 {
		return code
	}
	defer st.Close()
	verb, ids := p.fs.Arg(0), p.fs.Args()
	if len(ids) > 0 {
		ids = ids[1:]
	}
	entries, err := st.Staging.List()
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether staged: %v\n", err)
		return 1
	}
	switch verb {
	case "", "list":
		if p.json {
			printJSON(cio, entries)
			return 0
		}
		if len(entries) == 0 {
			fmt.Fprintln(cio.stdout, "Nothing is staged. Changes are staged in the dryRun permission mode.")
		}
		for _, e := range entries {
			fmt.Fprintf(cio.stdout, "%s  %s\n", e.ID, e.Title)
		}
		return 0
	case "show":
		for _, id := range ids {
			e, err := st.Staging.Get(id)
			if err != nil {
				fmt.Fprintf(cio.stderr, "tether staged: %v\n", err)
				return 1
			}
			fmt.Fprint(cio.stdout, e.Diff)
		}
		return 0
	case "drop":
		if len(ids) == 0 {
			for _, e := range entries {
				ids = append(ids, e.ID)
			}
		}
		for _, id := range ids {
			e, err := st.Staging.Get(id)
			if err == nil {
				err = st.Staging.Remove(e.ID)
			}
			if err != nil {
				fmt.Fprintf(cio.stderr, "tether staged: %v\n", err)
				return 1
			}
			fmt.Fprintf(cio.stdout, "dropped %s  %s\n", e.ID, e.Title)
		}
		return 0
	case "apply":
		return applyStaged(st, ws, entries, ids, cio)
	}
	fmt.Fprintf(cio.stderr, "tether staged: unknown action %q: use list, show, apply or drop\n", verb)
	return 2
}

// applyStaged writes staged changes, oldest first, as one undoable request.
func applyStaged(st *stores.Stores, ws *workspace.Workspace, entries []staging.Entry, ids []string, cio cmdIO) int {
	if len(ids) == 0 {
		for _, e := range entries {
			ids = append(ids, e.ID)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &tool.Env{Workspace: ws, Log: cliLogger(cio.stderr)}
	env.Attach(st)
	requestID := freshRequestID()
	session := tool.NewSession()
	failed := 0
	for _, id := range ids {
		e, err := st.Staging.Get(id)
		if err != nil {
			fmt.Fprintf(cio.stderr, "tether staged: %v\n", err)
			failed++
			continue
		}
		c := &tool.Call{Name: "staged apply", RequestID: requestID, Budget: tool.NewBudget(0, 0), Session: session, Env: env}
		res, err := c.ApplyStaged(ctx, e)
		if err != nil {
			env.Log.Error("applying a staged change", "id", e.ID, "err", err)
		}
		if res.IsError {
			fmt.Fprintf(cio.stderr, "not applied %s: %s\n", e.ID, res.Content)
			failed++
			continue
		}
		if err := st.Staging.Remove(e.ID); err != nil {
			fmt.Fprintf(cio.stderr, "tether staged: applied %s but could not remove it: %v\n", e.ID, err)
		}
		fmt.Fprintf(cio.stdout, "applied %s  %s\n", e.ID, e.Title)
	}
	if id, ok := st.Undo.CheckpointID(requestID); ok {
		fmt.Fprintf(cio.stdout, "Undo checkpoint %s puts them back (tether undo %s).\n", id, id)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func trustMain(args []string, cio cmdIO) int {
	p := newProjectFlags("trust", "trust [--workspace DIR] [--off]  (let the project's test runners run without asking)", cio)
	off := p.fs.Bool("off", false, "withdraw the trust")
	st, ws, code := p.open(args, cio)
	if code >= 0 {
		return code
	}
	defer st.Close()
	if err := shell.SetTrusted(ws.Primary(), !*off); err != nil {
		fmt.Fprintf(cio.stderr, "tether trust: %v\n", err)
		return 1
	}
	if *off {
		fmt.Fprintf(cio.stdout, "%s is no longer trusted: its test runners ask before they run.\n", ws.Primary())
	} else {
		fmt.Fprintf(cio.stdout, "%s is trusted: its test runners (go test, npm test, pytest…) run without asking. They run the project's own code; undo with tether trust --off.\n", ws.Primary())
	}
	return 0
}
