package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/search"
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
	ContextLines    int    `json:"context_lines,omitempty" jsonschema:"Lines to show before and after each match. Default 0."`
	MaxMatches      int    `json:"max_matches,omitempty" jsonschema:"Most output lines to return, context lines included. Default 200, at most 2000."`
}

// Grep is the grep tool.
var Grep = New(Def[grepArgs]{
	Name: "grep",
	Description: `Search file contents with a regular expression, using ripgrep. ` +
		`Returns matching lines as path:line:text (1-based line numbers, the same as read_file's), files in path order; with context_lines, the lines around a match read path-line-text and separate groups are split by --. ` +
		`Searches the workspace folder, or the file or folder in path. Files ignored by .gitignore (or .ignore) are skipped whether or not the folder is a git repository, unless path names them; hidden files such as .github/ are searched; .git/ and binary files never are. ` +
		`glob keeps only files matching a pattern: a pattern without a slash matches file names at any depth. ` +
		`Output stops at max_matches lines (default 200) or at the output budget, and then says so without counting the rest: narrow the pattern, path or glob rather than raising the limit. Very long lines (minified files) are cut to a preview. ` +
		`Use glob to find files by name, read_file to see a match in full.`,
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
	},
	Describe: func(a grepArgs) string { return "Searching for " + a.Pattern },
	Run:      runGrep,
})

func runGrep(ctx context.Context, c *Call, a grepArgs) Result {
	if c.Env.RgPath == "" {
		return noRipgrep("grep", "", nil)
	}
	var glob *search.Glob
	if a.Glob != "" {
		g, err := search.CompileGlob(a.Glob)
		if err != nil {
			return Errorf("invalid glob: %v", err)
		}
		glob = g
	}
	root, _, err := c.searchDir(ctx, a.Path)
	if err != nil {
		return Errorf("%v", err)
	}
	budget := c.Budget.OutputChars()
	q := search.GrepQuery{
		Rg:         c.Env.RgPath,
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
		return searchFailed(ctx, "grep", c.Env.RgPath, err)
	}
	if res.Lines == 0 {
		return Text(fmt.Sprintf("No matches for %s in %s%s.", quoteArg(a.Pattern), folderName(root), globNote(a.Glob)))
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
	return Text(b.String())
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
		s = cutUTF8(s[:200]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// firstLineCut keeps a message's first line, cut short enough to fit the
// room left for notes.
func firstLineCut(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 200 {
		line = cutUTF8(line[:200]) + "…"
	}
	return line
}
