package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// The commands in this file act on a project's stores from a terminal:
// the same checkpoints, rules and staged changes the editor sees.

func runUndo(args []string) int        { return undoCmd.main(args, osIO()) }
func runCheckpoints(args []string) int { return checkpointsCmd.main(args, osIO()) }
func runAllow(args []string) int       { return allowCmd.main(args, osIO()) }
func runStaged(args []string) int      { return stagedCmd.main(args, osIO()) }
func runTrust(args []string) int       { return trustCmd.main(args, osIO()) }

// projectCommand is one command on a project's stores. Every one takes
// --workspace and --json, opens the stores, runs, and closes them.
type projectCommand struct {
	name, usage string
	// flags adds the command's own flags, if any.
	flags func(fs *flag.FlagSet)
	run   func(p *projectRun) int
}

// projectRun is what a project command runs with.
type projectRun struct {
	st   *stores.Stores
	ws   *workspace.Workspace
	fs   *flag.FlagSet
	json bool
	cio  cmdIO
	name string
}

// main parses args, opens the project's stores and runs the command.
func (c projectCommand) main(args []string, cio cmdIO) int {
	fs := flag.NewFlagSet("tether "+c.name, flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	dir := fs.String("workspace", ".", "the project's folder")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintf(cio.stderr, "usage: tether %s\n\nflags:\n", c.usage)
		fs.PrintDefaults()
	}
	if c.flags != nil {
		c.flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if strings.TrimSpace(*dir) == "" {
		fmt.Fprintf(cio.stderr, "tether %s: --workspace: %v\n", c.name, errEmptyFolder)
		return 2
	}
	ws, err := workspace.New(*dir)
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether %s: %v\n", c.name, err)
		return 2
	}
	set := tool.DefaultSettings()
	st, err := tool.OpenStores(ws, &set, cliLogger(cio.stderr, ""), false)
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether %s: %v\n", c.name, err)
		return 1
	}
	defer st.Close()
	return c.run(&projectRun{st: st, ws: ws, fs: fs, json: *asJSON, cio: cio, name: c.name})
}

// fail reports an error of the command and returns its exit status.
func (p *projectRun) fail(err error) int {
	fmt.Fprintf(p.cio.stderr, "tether %s: %v\n", p.name, err)
	return 1
}

func printJSON(cio cmdIO, v any) {
	enc := json.NewEncoder(cio.stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

var undoCmd = projectCommand{
	name:  "undo",
	usage: "undo [--workspace DIR] [CHECKPOINT]  (default: the newest not yet undone)",
	run: func(p *projectRun) int {
		rep, err := p.st.Undo.Undo(p.fs.Arg(0))
		if err != nil {
			return p.fail(err)
		}
		if p.json {
			printJSON(p.cio, rep)
			return 0
		}
		fmt.Fprintf(p.cio.stdout, "Undid checkpoint %s.\n", rep.ID)
		if rep.Damaged != "" {
			fmt.Fprintf(p.cio.stdout, "  DAMAGED: %s.\n", rep.Damaged)
		}
		for _, f := range rep.Restored {
			fmt.Fprintf(p.cio.stdout, "  restored  %s\n", f)
		}
		for _, c := range rep.Conflicts {
			fmt.Fprintf(p.cio.stdout, "  left alone %s: %s\n", c.Path, c.Reason)
		}
		if len(rep.Conflicts) > 0 {
			fmt.Fprintf(p.cio.stdout, "What could not be put back is kept: tether checkpoints %s shows it.\n", rep.ID)
		}
		return 0
	},
}

var checkpointsCmd = projectCommand{
	name:  "checkpoints",
	usage: "checkpoints [--workspace DIR] [--json] [CHECKPOINT]  (with an id: its diff)",
	run: func(p *projectRun) int {
		if id := p.fs.Arg(0); id != "" {
			d, err := p.st.Undo.Show(id)
			if err != nil {
				return p.fail(err)
			}
			fmt.Fprint(p.cio.stdout, d)
			return 0
		}
		cps, err := p.st.Undo.List()
		if err != nil {
			return p.fail(err)
		}
		if p.json {
			printJSON(p.cio, cps)
			return 0
		}
		if len(cps) == 0 {
			fmt.Fprintln(p.cio.stdout, "No checkpoints yet: every request that changes files leaves one.")
			return 0
		}
		for _, c := range cps {
			state := ""
			if c.Undone {
				state = " (undone)"
			}
			fmt.Fprintf(p.cio.stdout, "%s  %s  %s%s\n", c.ID, c.Created.Local().Format("2006-01-02 15:04"), c.Summary, state)
			if c.Interrupted != "" {
				fmt.Fprintf(p.cio.stdout, "  INTERRUPTED: %s.\n", c.Interrupted)
			}
		}
		return 0
	},
}

var allowCmd = func() projectCommand {
	var reset *bool
	var remove *int
	return projectCommand{
		name:  "allow",
		usage: "allow [--workspace DIR] [--reset | --remove N]  (list the saved \"always\" answers, forget one, or all)",
		flags: func(fs *flag.FlagSet) {
			reset = fs.Bool("reset", false, "forget every saved \"always\" answer")
			remove = fs.Int("remove", 0, "forget the saved answer numbered `N` in the list")
		},
		run: func(p *projectRun) int {
			rules := p.st.Rules.List()
			switch {
			case *reset && *remove != 0:
				fmt.Fprintf(p.cio.stderr, "tether allow: --reset and --remove do not go together\n")
				return 2
			case *reset:
				if err := p.st.Rules.Reset(); err != nil {
					return p.fail(err)
				}
				fmt.Fprintf(p.cio.stdout, "Forgot %d saved answer(s); every step asks again.\n", len(rules))
				return 0
			case *remove != 0:
				if *remove < 1 || *remove > len(rules) {
					fmt.Fprintf(p.cio.stderr, "tether allow: --remove %d: there is no answer with that number; tether allow lists them, numbered from 1 to %d\n", *remove, len(rules))
					return 2
				}
				r := rules[*remove-1]
				if _, err := p.st.Rules.Remove(r); err != nil {
					return p.fail(err)
				}
				fmt.Fprintf(p.cio.stdout, "Forgot: always %s. It asks again.\n", r)
				return 0
			}
			if p.json {
				wire := make([]protocol.PermissionRule, len(rules))
				for i, r := range rules {
					wire[i] = r.Wire()
				}
				printJSON(p.cio, wire)
				return 0
			}
			if len(rules) == 0 {
				fmt.Fprintf(p.cio.stdout, "No saved \"always\" answers for %s.\n", p.ws.Primary())
				return 0
			}
			fmt.Fprintf(p.cio.stdout, "Saved \"always\" answers (%s):\n", stores.RulesPath(p.ws.Primary()))
			for i, r := range rules {
				fmt.Fprintf(p.cio.stdout, "  %d  always %s  (since %s)\n", i+1, r, r.Added.Local().Format("2006-01-02"))
			}
			fmt.Fprintf(p.cio.stdout, "Forget one with tether allow --remove N, all with tether allow --reset.\n")
			return 0
		},
	}
}()

var stagedCmd = projectCommand{
	name:  "staged",
	usage: "staged [--workspace DIR] [list | show ID | apply [ID...] | drop [ID...]]",
	run: func(p *projectRun) int {
		verb, ids := p.fs.Arg(0), p.fs.Args()
		if len(ids) > 0 {
			ids = ids[1:]
		}
		entries, err := p.st.Staging.List()
		if err != nil {
			return p.fail(err)
		}
		switch verb {
		case "", "list":
			if p.json {
				printJSON(p.cio, entries)
				return 0
			}
			if len(entries) == 0 {
				fmt.Fprintln(p.cio.stdout, "Nothing is staged. Changes are staged in the dryRun permission mode.")
			}
			for _, e := range entries {
				fmt.Fprintf(p.cio.stdout, "%s  %s\n", e.ID, e.Title)
			}
			return 0
		case "show":
			for _, id := range ids {
				e, err := p.st.Staging.Get(id)
				if err != nil {
					return p.fail(err)
				}
				fmt.Fprint(p.cio.stdout, e.Diff)
			}
			return 0
		case "drop":
			if len(ids) == 0 {
				for _, e := range entries {
					ids = append(ids, e.ID)
				}
			}
			for _, id := range ids {
				e, err := p.st.Staging.Get(id)
				if err == nil {
					err = p.st.Staging.Remove(e.ID)
				}
				if err != nil {
					return p.fail(err)
				}
				fmt.Fprintf(p.cio.stdout, "dropped %s  %s\n", e.ID, e.Title)
			}
			return 0
		case "apply":
			return applyStaged(p, entries, ids)
		}
		fmt.Fprintf(p.cio.stderr, "tether staged: unknown action %q: use list, show, apply or drop\n", verb)
		return 2
	},
}

// applyStaged writes staged changes, oldest first, as one undoable request.
func applyStaged(p *projectRun, entries []staging.Entry, ids []string) int {
	st, ws, cio := p.st, p.ws, p.cio
	if len(ids) == 0 {
		for _, e := range entries {
			ids = append(ids, e.ID)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := tool.NewEnv(tool.EnvConfig{Workspace: ws, Log: cliLogger(cio.stderr, ""), Settings: tool.DefaultSettings(), Stores: st})
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

var trustCmd = func() projectCommand {
	var off *bool
	return projectCommand{
		name:  "trust",
		usage: "trust [--workspace DIR] [--off]  (let the project's test runners run without asking)",
		flags: func(fs *flag.FlagSet) { off = fs.Bool("off", false, "withdraw the trust") },
		run: func(p *projectRun) int {
			if err := shell.SetTrusted(p.ws.Primary(), !*off); err != nil {
				return p.fail(err)
			}
			if *off {
				fmt.Fprintf(p.cio.stdout, "%s is no longer trusted: its test runners ask before they run.\n", p.ws.Primary())
			} else {
				fmt.Fprintf(p.cio.stdout, "%s is trusted: its test runners (go test, npm test, pytest…) run without asking. They run the project's own code; undo with tether trust --off.\n", p.ws.Primary())
			}
			return 0
		},
	}
}()
