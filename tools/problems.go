package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	lsp "go.lsp.dev/protocol"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type problemsArgs struct {
	Path     string `json:"path,omitempty" jsonschema:"Only problems in this file or folder (relative to the workspace, or absolute). Default: the whole workspace."`
	Severity string `json:"severity,omitempty" jsonschema:"The least severe kind to include: error, warning, info or hint. Default: all."`
}

// recentPublish is how recent a publish must be for the editor to be
// considered still busy analysing.
const recentPublish = 2 * time.Second

//go:embed problems.md
var problemsDoc string

// Problems is the problems tool.
var Problems = tool.New(tool.Def[problemsArgs]{
	Name:            "problems",
	Doc:             problemsDoc,
	UserDescription: "See the editor's errors and warnings",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Available:       func(env *tool.Env) bool { return env.Capabilities.Diagnostics && env.Diagnostics != nil },
	NotAvailable:    "needs an editor that publishes its diagnostics (the VS Code extension)",
	Tune: func(s *jsonschema.Schema) {
		s.Properties["severity"].Enum = []any{"error", "warning", "info", "hint"}
	},
	Describe: func(a problemsArgs) string {
		if a.Path != "" {
			return "Checking problems in " + a.Path
		}
		return "Checking the editor's problems"
	},
	Run: runProblems,
})

func runProblems(ctx context.Context, c *tool.Call, a problemsArgs) (tool.Result, error) {
	minSev, err := diagnostics.ParseSeverity(a.Severity)
	if err != nil {
		return tool.Result{}, tool.Refuse(err) // an unknown severity name
	}
	ws := c.Env.Workspace
	var scope string
	if a.Path != "" {
		loc, err := c.Locate(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		scope = loc.Real
	}
	var ps []diagnostics.Problem
	for path, diags := range c.Env.Diagnostics.All() {
		if scope != "" && path != scope && !strings.HasPrefix(path, scope+string(filepath.Separator)) {
			continue
		}
		for _, d := range diags {
			if sev := d.Severity; sev != 0 && sev > minSev {
				continue
			}
			ps = append(ps, diagnostics.Problem{Path: ws.Rel(path), Diagnostic: d})
		}
	}
	where := "the workspace"
	if a.Path != "" {
		where = a.Path
	}
	last := c.Env.Diagnostics.LastPublish()
	var note string
	switch {
	case last.IsZero():
		note = " The editor has not published any diagnostics yet; they may still be coming while it analyses the project."
	case time.Since(last) < recentPublish:
		note = fmt.Sprintf(" The editor published diagnostics %s ago, so it may still be analysing; ask again in a moment if you just changed something.", time.Since(last).Round(time.Millisecond))
	}
	if len(ps) == 0 {
		return tool.Text(fmt.Sprintf("No problems in %s%s.%s", where, severityScope(minSev), note)), nil
	}
	out := diagnostics.Format(ps, c.Budget.OutputChars()-len(note)-1)
	if note != "" {
		out += strings.TrimSpace(note) + "\n"
	}
	return tool.Text(out), nil
}

func severityScope(s lsp.DiagnosticSeverity) string {
	if s >= lsp.DiagnosticSeverityHint {
		return ""
	}
	return " at " + diagnostics.SeverityName(s) + " level or worse"
}
