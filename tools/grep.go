package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
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
	BeforeContext   *int   `json:"before_context,omitempty" jsonschema:"Lines to show before each match, instead of context_lines on that side (like grep -B)."`
	AfterContext    *int   `json:"after_context,omitempty" jsonschema:"Lines to show after each match, instead of context_lines on that side (like grep -A)."`
	OutputMode      string `json:"output_mode,omitempty" jsonschema:"What to return: content (matching lines as path:line:text, the default), files_with_matches (the paths of the files that match) or count (each matching file as path:count of matching lines)."`
	Multiline       bool   `json:"multiline,omitempty" jsonschema:"Let a match span lines: . also matches a line break, and \\n matches one. Default false."`
	Offset          int    `json:"offset,omitempty" jsonschema:"Output lines (or files, in the other modes) of the sorted answer to skip: pass the offset a cut result gives to read the next page. Default 0."`
	MaxMatches      int    `json:"max_matches,omitempty" jsonschema:"Most output lines to return, context lines included (files, in the other modes)."`
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
		for _, p := range []string{"context_lines", "before_context", "after_context"} {
			s.Properties[p].Types, s.Properties[p].Type = nil, "integer"
			s.Properties[p].Minimum = jsonschema.Ptr(0.0)
			s.Properties[p].Maximum = jsonschema.Ptr(float64(grepMaxContext))
			s.Properties[p].Description += fmt.Sprintf(" At most %d.", grepMaxContext)
		}
		s.Properties["offset"].Minimum = jsonschema.Ptr(0.0)
		modes := make([]any, len(search.Modes))
		for i, m := range search.Modes {
			modes[i] = string(m)
		}
		s.Properties["output_mode"].Enum = modes
		s.Properties["max_matches"].Minimum = jsonschema.Ptr(1.0)
		s.Properties["max_matches"].Maximum = jsonschema.Ptr(float64(grepMaxLines))
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
		return tool.Result{}, err
	}
	before, after := a.ContextLines, a.ContextLines
	if a.BeforeContext != nil {
		before = *a.BeforeContext
	}
	if a.AfterContext != nil {
		after = *a.AfterContext
	}
	budget := c.Budget.OutputChars()
	q := search.GrepQuery{
		Rg:         c.Env.Settings.RgPath,
		Dir:        c.Env.Workspace.Primary(),
		Root:       root,
		Pattern:    a.Pattern,
		Glob:       glob,
		IgnoreCase: a.CaseInsensitive,
		Multiline:  a.Multiline,
		Before:     before,
		After:      after,
		Mode:       search.Mode(a.OutputMode),
		Offset:     a.Offset,
		MaxLines:   limitArg(a.MaxMatches, grepDefaultLines, grepMaxLines),
		MaxBytes:   max(budget-footerRoom, budget/2),
		MaxColumns: grepColumns(budget),
	}
	res, err := search.Grep(ctx, q)
	if err != nil {
		return searchFailed(ctx, "grep", c.Env.Settings.RgPath, err), nil
	}
	if res.Total == 0 {
		return tool.Text(fmt.Sprintf("No matches for %s in %s%s.", quoteArg(a.Pattern), folderName(root), globNote(a.Glob))), nil
	}
	unit := "line"
	if q.Mode == search.FilesWithMatches || q.Mode == search.Counts {
		unit = "file"
	}
	if res.Lines == 0 {
		return tool.Failf("offset %d is past the end: the answer has %s. Pass an offset below %d, or leave it out to start at the beginning.", q.Offset, totalOf(res), res.Total), nil
	}
	var b strings.Builder
	b.WriteString(res.Text)
	first, last := q.Offset+1, q.Offset+res.Lines
	span := fmt.Sprintf("%ss %d-%d of %s", unit, first, last, totalOf(res))
	switch res.Stop {
	case search.AtLimit:
		fmt.Fprintf(&b, "[%s (max_matches=%d); continue with offset=%d, or narrow the pattern, path or glob.]\n", span, q.MaxLines, last)
	case search.AtBudget:
		fmt.Fprintf(&b, "[%s: the output budget is full; continue with offset=%d, or narrow the pattern, path or glob.]\n", span, last)
	default:
		if q.Offset > 0 {
			fmt.Fprintf(&b, "[%s: the end.]\n", span)
		}
	}
	if q.Mode == search.Counts && !res.AtLeast {
		fmt.Fprintf(&b, "[%s in %s]\n", countNoun(res.Matches, "matching line"), countNoun(res.Files, "file"))
	}
	if res.Warnings != "" {
		fmt.Fprintf(&b, "[ripgrep could not read some files: %s]\n", firstLineCut(res.Warnings))
	}
	return tool.Text(b.String()), nil
}

// totalOf says how many units the answer has: "36", or "at least 100000"
// when it was too large to count.
func totalOf(res search.GrepResult) string {
	if res.AtLeast {
		return fmt.Sprintf("at least %d", res.Total)
	}
	return strconv.Itoa(res.Total)
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
