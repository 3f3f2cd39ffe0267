package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tether-dev/tether/internal/compose"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type composeArgs struct {
	Code string `json:"code" jsonschema:"The program: JavaScript statements of compose's subset. Top-level await and return work; call tools as tools.tether.<name>({...})."`
}

//go:embed compose.md
var composeDoc string

// Compose is the compose tool. Its programs call the tools of the registry
// that runs it.
var Compose = tool.New(tool.Def[composeArgs]{
	Name: "compose",
	Doc:  composeDoc,
	Data: func(s *tool.Settings) any {
		l := compose.LimitsFor(s)
		excluded := make([]string, 0, len(compose.Excluded))
		for n := range compose.Excluded {
			excluded = append(excluded, n)
		}
		sort.Strings(excluded)
		return struct {
			compose.Limits
			Excluded               string
			SearchLimit, SearchMax int
		}{l, strings.Join(excluded, ", "), compose.DefaultSearchLimit, compose.MaxSearchLimit}
	},
	UserDescription: "Run a small program that calls other tools",
	Risk:            protocol.RiskHigh,
	Permission:      "per child call",
	Describe: func(a composeArgs) string {
		return "Running a program of " + countNoun(strings.Count(strings.TrimRight(a.Code, "\n"), "\n")+1, "line")
	},
	Run: func(ctx context.Context, c *tool.Call, a composeArgs) (tool.Result, error) {
		return runCompose(ctx, c, a, c.Registry)
	},
})

func runCompose(ctx context.Context, c *tool.Call, a composeArgs, reg *tool.Registry) (tool.Result, error) {
	r := &compose.Runner{
		Registry: reg,
		Parent:   c,
		Limits:   compose.LimitsFor(&c.Env.Settings),
		Catalog:  compose.NewCatalog(reg, c.Env),
	}
	if c.Prepare {
		// A preview only checks the program: each child call asks for
		// itself when it runs.
		if len(a.Code) > r.Limits.SourceBytes {
			return tool.Failf("the program is %s, over compose's %s source limit", tool.HumanBytes(int64(len(a.Code))), tool.HumanBytes(int64(r.Limits.SourceBytes))), nil
		}
		if _, err := compose.Validate(a.Code); err != nil {
			return refused(err), nil
		}
		return tool.Result{Title: "Run a compose program"}, nil
	}
	out := r.Run(ctx, a.Code)
	var ve *compose.ValidationError
	if errors.As(out.Err, &ve) {
		return refused(ve), nil
	}
	if errors.Is(out.Err, compose.ErrCancelled) && len(out.Children) == 0 {
		return tool.Cancelled("compose"), nil
	}
	return report(out, c.Budget), nil
}

// refused tells the model why a program was not run.
func refused(err error) tool.Result {
	var ve *compose.ValidationError
	if !errors.As(err, &ve) {
		return tool.Failf("the program was not run: %v", err)
	}
	var b strings.Builder
	b.WriteString("The program was not run (nothing happened): it uses what compose's subset does not have.\n")
	for _, d := range ve.Diagnostics {
		fmt.Fprintf(&b, "line %d:%d: %s\n", d.Line, d.Column, d.Message)
	}
	b.WriteString("Fix these and call compose again; its description lists what a program may use.")
	return tool.Failf("%s", b.String())
}

// maxArgsShown and maxErrorShown keep each line of the call list short.
const (
	maxArgsShown  = 100
	maxErrorShown = 160
)

// report is what the model is told: the value first, then the logs, then
// one line per call. The value is cut first to make room for the rest,
// and never below half the budget.
func report(out *compose.Outcome, budget tool.Budget) tool.Result {
	var head strings.Builder
	res := tool.Result{Title: "Compose program"}
	switch {
	case out.Err != nil:
		res.IsError = true
		fmt.Fprintf(&head, "The program stopped: %s.\n", strings.TrimRight(out.Err.Error(), ". "))
		if made(out) {
			head.WriteString("The calls it made before that have had their effect (nothing is undone or repeated); check the list below before running the rest.\n")
		}
	case out.Value.Kind == "none":
		head.WriteString("The program finished without returning a value.\n")
	}

	var rest strings.Builder
	if len(out.Logs) > 0 || out.LogsDropped > 0 {
		fmt.Fprintf(&rest, "\nLogs (%s", countNoun(len(out.Logs), "line"))
		if out.LogsDropped > 0 {
			fmt.Fprintf(&rest, "; %d more dropped: the %s limit is %d", out.LogsDropped, compose.LimitLogs, compose.MaxLogLines)
		}
		rest.WriteString("):\n")
		for _, l := range out.Logs {
			rest.WriteString(l + "\n")
		}
	}
	if len(out.Children) > 0 {
		fmt.Fprintf(&rest, "\nTool calls (%d", len(out.Children))
		if out.Waited > 0 {
			fmt.Fprintf(&rest, "; %d waited for a free slot: the %s limit is %d", out.Waited, compose.LimitConcurrency, compose.MaxConcurrentCalls)
		}
		rest.WriteString("):\n")
		var diffs []string
		for _, ch := range out.Children {
			fmt.Fprintf(&rest, "%d. %s %s %s\n", ch.N, ch.Tool, shortArgs(ch.Args), outcomeWord(ch))
			if !ch.Result.IsError && ch.Result.Diff != "" {
				diffs = append(diffs, ch.Result.Diff)
			}
		}
		res.Diff = strings.Join(diffs, "")
	}

	limit := budget.OutputChars()
	value := ""
	if out.Err == nil && out.Value.Kind != "none" {
		value = out.Value.Text + "\n"
	}
	room := limit - head.Len() - min(rest.Len(), limit/2)
	if len(value) > room {
		value = tool.CapHead(value, room, fmt.Sprintf("(the %s limit: this call's output budget. Return less: select fields, filter, or slice)", compose.LimitOutput))
		value += "\n"
	}
	tail := rest.String()
	if left := limit - head.Len() - len(value); len(tail) > left {
		tail = tool.CapHeadTail(tail, max(left, 0))
	}
	res.Content = head.String() + value + tail
	return res
}

// made reports whether any call of the program did what it was asked.
func made(out *compose.Outcome) bool {
	for _, ch := range out.Children {
		if ch.Status == protocol.ActivityOK {
			return true
		}
	}
	return false
}

// shortArgs is a call's arguments in one short line.
func shortArgs(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > maxArgsShown {
		s = tool.CutUTF8(s[:maxArgsShown]) + "…}"
	}
	return s
}

func outcomeWord(ch *compose.Child) string {
	switch ch.Status {
	case protocol.ActivityOK:
		return "ok"
	case protocol.ActivityRefused:
		return "refused: " + firstLine(ch.Result.Content)
	}
	return "error: " + firstLine(ch.Result.Content)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > maxErrorShown {
		s = tool.CutUTF8(s[:maxErrorShown]) + "…"
	}
	return s
}
