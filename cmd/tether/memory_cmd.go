package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// tether memory: the project's memories from a terminal, the same files
// the agent's memory tools and the editor's "Show Memories" use.

func runMemory(args []string) int { return memoryCmd.main(args, osIO()) }

var memoryCmd = projectCommand{
	name:  "memory",
	usage: "memory [--workspace DIR] [--json] [list | show NAME | search QUERY | archive NAME]",
	run:   memoryRun,
}

func memoryRun(p *projectRun) int {
	st, ws, cio := p.st, p.ws, p.cio
	fail := func(format string, a ...any) int {
		fmt.Fprintf(cio.stderr, "tether memory: "+format+"\n", a...)
		return 1
	}
	verb, rest := p.fs.Arg(0), []string{}
	if p.fs.NArg() > 1 {
		rest = p.fs.Args()[1:]
	}
	switch verb {
	case "", "list":
		ms, err := st.Memory.List()
		if err != nil {
			return fail("%v", err)
		}
		if p.json {
			infos := []protocol.MemoryInfo{}
			for _, m := range ms {
				info := protocol.MemoryInfo{Name: m.Name, Path: m.Path, Type: string(m.Meta.Type), Description: m.Meta.Description, Updated: m.Updated().UTC(), Source: m.Meta.Source}
				if m.Err != nil {
					info.Error = m.Err.Error()
				}
				infos = append(infos, info)
			}
			printJSON(cio, protocol.MemoryListResult{Dir: st.Memory.Dir(), Memories: infos})
			return 0
		}
		if len(ms) == 0 {
			fmt.Fprintf(cio.stdout, "No memories yet for %s (they are kept in %s).\n", ws.Primary(), st.Memory.Dir())
			return 0
		}
		for _, m := range ms {
			line := fmt.Sprintf("%-24s %-10s %s", m.Name, m.Meta.Type, m.Updated().Local().Format("2006-01-02 15:04"))
			if m.Meta.Source == memory.SourceWeb {
				line += "  [web]"
			}
			if m.Err != nil {
				line += "  BROKEN: " + m.Err.Error()
			} else if m.Meta.Description != "" {
				line += "  " + m.Meta.Description
			}
			fmt.Fprintln(cio.stdout, line)
		}
		fmt.Fprintf(cio.stdout, "(%d in %s)\n", len(ms), st.Memory.Dir())
		return 0
	case "show":
		if len(rest) != 1 {
			return fail("show takes one memory name")
		}
		name, err := memory.CheckName(rest[0])
		if err != nil {
			return fail("%v: %s", err, memory.NameRule)
		}
		m, err := st.Memory.Load(name)
		if errors.Is(err, fs.ErrNotExist) {
			return fail("there is no memory named %s (tether memory list shows them)", name)
		}
		if err != nil {
			return fail("%v", err)
		}
		if m.Err != nil {
			fmt.Fprintf(cio.stderr, "tether memory: %s cannot be read as a memory: %v; fix %s\n", name, m.Err, m.Path)
		}
		cio.stdout.Write(m.Raw)
		return 0
	case "search", "archive":
		if len(rest) == 0 {
			return fail("%s needs %s", verb, map[string]string{"search": "a query", "archive": "a memory name"}[verb])
		}
		if verb == "archive" && len(rest) != 1 {
			return fail("archive takes one memory name")
		}
		// The agent's own tools do the work, so the output and the rules
		// are the same. Archiving is the user's own act: it asks nothing,
		// and it is undoable like any request.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		set := tool.DefaultSettings()
		set.Mode = protocol.ModeBypass
		env := tool.NewEnv(tool.EnvConfig{Workspace: ws, Log: cliLogger(cio.stderr, ""), Settings: set, Stores: st})
		requestID := freshRequestID()
		name, args := "memory_search", map[string]string{"query": strings.Join(rest, " ")}
		if verb == "archive" {
			name, args = "memory_archive", map[string]string{"name": rest[0]}
		}
		raw, _ := json.Marshal(args)
		res := tools.Builtin().Invoke(ctx, &tool.Call{Name: name, Args: raw, RequestID: requestID, Budget: tool.NewBudget(0, 0), Session: tool.NewSession(), Env: env})
		if res.IsError {
			return fail("%s", res.Content)
		}
		fmt.Fprint(cio.stdout, withNewline(res.Content))
		if id, ok := st.Undo.CheckpointID(requestID); ok {
			fmt.Fprintf(cio.stdout, "Undo checkpoint %s puts it back (tether undo %s).\n", id, id)
		}
		return 0
	}
	fmt.Fprintf(cio.stderr, "tether memory: unknown action %q: use list, show, search or archive\n", verb)
	return 2
}
