package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// Limits of grep's output, in lines (matches and context together).
const (
	grepDefaultLines = 200
	grepMaxLines     = 2000
	grepMaxContext   = 20
)

// footerRoom is kept free in a search result's budget for the note that
// says why it stopped.
const footerRoom = 600

type grepArgs struct {
	Pattern         string `json:"pattern" jsonschema:"Regular expression to search for (Rust syntax, like RE2): escape ( ) [ ] { } . * + ? | ^ $ \\ to match them literally."`
	Path            string `json:"path,omitempty" jsonschema:"File or folder to search, relative to the workspace folder or absolute. Default: the workspace folder."`
	Glob            string `json:"glob,omitempty" jsonschema:"Only search files whose path (relative to path) matches this glob: *.go, src/**/*.ts, *.{ts,tsx}. A leading ! leaves matching files out: !*_test.go."`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"Match letters regardless of case. Default false."`
	ContextLines    int    `json:"context_lines,omitempty" jsonschema:"Lines to show before and after each match. Default none."`
	MaxMatches      int    `json:"max_matches,omitempty" jsonschema:"Most output lines to return, context lines included."`
}

//go:embed grep.md
var grepDoc string

// Grep is the grep tool.
var Grep = tool.New(tool.Def[grepArgs]{
	Name:            "grep",
	Doc:             grepDoc,
	Data:            func(*tool.Settings) any { return struct{ DefaultMax, Max int }{grepDefaultLines, grepMaxLines} },
	UserDescription: "Search file contents",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["pattern"].MinLength = jsonschema.Ptr(1)
		s.Properties["context_lines"].Minimum = jsonschema.Ptr(0.0)
		s.Properties["context_lines"].Maximum = jsonschema.Ptr(float64(grepMaxContext))
		s.Properties["max_matches"].Minimum = jsonschema.Ptr(1.0)
		s.Properties["max_matches"].Maximum = jsonschema.Ptr(float64(grepMaxLines))
		s.Properties["context_lines"].Description += fmt.Sprintf(" At most %d.", grepMaxContext)
		s.Properties["max_matches"].Description += fmt.Sprintf(" Default %d, at most %d.", grepDefaultLines, grepMaxLines)
	},
	Describe: func(a grepArgs) string { return "Searching for " + a.Pattern },
	Run:      runGrep,
})

func runGrep(ctx context.Context, c *tool.Call, a grepArgs) (tool.Result, error) {
	if c.Env.Settings.RgPath == "" {
		return noRipgrep("grep", "", nil), nil
	}
	var glob *search.Glob
	if a.Glob != "" {
		g, err := search.CompileGlob(a.Glob)
		if err != nil {
			return tool.Failf("invalid glob: %v", err), nil
		}
		glob = g
	}
	root, _, err := searchDir(ctx, c, a.Path)
	if err != nil {
		return tool.Failf("%v", err), nil
	}
	budget := c.Budget.OutputChars()
	q := search.GrepQuery{
		Rg:         c.Env.Settings.RgPath,
		Dir:        c.Env.Workspace.Primary(),
		Root:       root,
		Pattern:    a.Pattern,
		Glob:       glob,
		IgnoreCase: a.CaseInsensitive,
		Context:    a.ContextLines,
		MaxLines:   limitArg(a.MaxMatches, grepDefaultLines, grepMaxLines),
		MaxBytes:   max(budget-footerRoom, budget/2),
		MaxColumns: grepColumns(budget),
	}
	res, err := search.Grep(ctx, q)
	if err != nil {
		return searchFailed(ctx, "grep", c.Env.Settings.RgPath, err), nil
	}
	if res.Lines == 0 {
		return tool.Text(fmt.Sprintf("No matches for %s in %s%s.", quoteArg(a.Pattern), folderName(root), globNote(a.Glob))), nil
	}
	var b strings.Builder
	b.WriteString(res.Text)
	switch res.Stop {
	case search.AtLimit:
		fmt.Fprintf(&b, "[stopped after %s (max_matches=%d); there are more. Narrow the pattern, path or glob to see the rest.]\n", countNoun(res.Lines, "line"), q.MaxLines)
	case search.AtBudget:
		fmt.Fprintf(&b, "[stopped after %s: the output budget is full; there are more. Narrow the pattern, path or glob to see the rest.]\n", countNoun(res.Lines, "line"))
	}
	if res.Warnings != "" {
		fmt.Fprintf(&b, "[ripgrep could not read some files: %s]\n", firstLineCut(res.Warnings))
	}
	return tool.Text(b.String()), nil
}

// grepColumns is how much of one long line grep shows: enough for any
// sensible source line, little enough that a minified file cannot fill
// the budget in a few matches.
func grepColumns(budget int) int {
	return min(max(budget/100, 150), 500)
}

func globNote(glob string) string {
	if glob == "" {
		return ""
	}
	return fmt.Sprintf(" (files matching %s)", glob)
}

// countNoun writes a count with its noun: "1 line", "2 lines".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// quoteArg shows a model-given string in a message, long ones cut.
func quoteArg(s string) string {
	if len(s) > 200 {
		s = tool.CutUTF8(s[:200]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// firstLineCut keeps a message's first line, cut short enough to fit the
// room left for notes.
func firstLineCut(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 200 {
		line = tool.CutUTF8(line[:200]) + "…"
	}
	return line
}
