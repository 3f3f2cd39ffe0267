package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/protocol"
)

// Limits of glob's output, in paths.
const (
	globDefaultPaths = 500
	globMaxPaths     = 5000
)

type globArgs struct {
	Pattern    string `json:"pattern" jsonschema:"Glob matched against file paths relative to path: *.go (any depth), src/**/*.ts, cmd/*.go (direct children only), *.{ts,tsx}, docs/ (everything under docs), !*.md (all but)."`
	Path       string `json:"path,omitempty" jsonschema:"Folder to search in, relative to the workspace folder or absolute. Default: the workspace folder."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"Most paths to return. Default 500, at most 5000."`
}

// Glob is the glob tool.
var Glob = New(Def[globArgs]{
	Name: "glob",
	Description: `Find files by name or path pattern. Returns matching file paths (relative to the workspace folder), one a line, sorted. ` +
		`A pattern without a slash matches file names at any depth (*.go finds a/b/c.go); with a slash it matches the whole path relative to path: cmd/*.go is only files directly in cmd, cmd/**/*.go any depth below it. ` +
		`** spans folders, * and ? stay within one name, [abc] and {ts,tsx} choose; a trailing / takes everything under such a folder; a leading ! lists the files that do not match. ` +
		`Walks like ripgrep: files ignored by .gitignore (or .ignore) are left out whether or not the folder is a git repository, unless path (or the literal start of the pattern) names their folder; hidden files such as .github/ are in; .git/ never. ` +
		`Stops at max_results (default 500) and says so: narrow the pattern or path rather than raising it. Use list_dir to see one folder, grep to search contents.`,
	UserDescription: "Find files by pattern",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["pattern"].MinLength = jsonschema.Ptr(1)
		s.Properties["max_results"].Minimum = jsonschema.Ptr(1.0)
		s.Properties["max_results"].Maximum = jsonschema.Ptr(float64(globMaxPaths))
	},
	Describe: func(a globArgs) string { return "Finding files matching " + a.Pattern },
	Run:      runGlob,
})

func runGlob(ctx context.Context, c *Call, a globArgs) Result {
	if c.Env.RgPath == "" {
		return noRipgrep("glob", "", nil)
	}
	g, err := search.CompileGlob(a.Pattern)
	if err != nil {
		return Errorf("invalid pattern: %v", err)
	}
	root, fi, err := c.searchDir(ctx, a.Path)
	if err != nil {
		return Errorf("%v", err)
	}
	if !fi.IsDir() {
		return Errorf("%s is a file, not a folder: glob searches folders. Pass its folder as path, or read it with read_file", root)
	}
	budget := c.Budget.OutputChars()
	q := search.FilesQuery{
		Rg:       c.Env.RgPath,
		Dir:      c.Env.Workspace.Primary(),
		Root:     root,
		Glob:     g,
		MaxPaths: limitArg(a.MaxResults, globDefaultPaths, globMaxPaths),
		MaxBytes: max(budget-footerRoom, budget/2),
	}
	res, err := search.Files(ctx, q)
	if err != nil {
		return searchFailed(ctx, "glob", c.Env.RgPath, err)
	}
	if len(res.Paths) == 0 {
		return Text(fmt.Sprintf("No files match %s in %s (files ignored by .gitignore are not listed).", quoteArg(a.Pattern), folderName(root)))
	}
	var b strings.Builder
	for _, p := range res.Paths {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	switch res.Stop {
	case search.AtLimit:
		fmt.Fprintf(&b, "[stopped after %s (max_results=%d); more files match. Narrow the pattern or path to see the rest.]\n", countNoun(len(res.Paths), "path"), q.MaxPaths)
	case search.AtBudget:
		fmt.Fprintf(&b, "[stopped after %s: the output budget is full; more files match. Narrow the pattern or path to see the rest.]\n", countNoun(len(res.Paths), "path"))
	}
	if res.Warnings != "" {
		fmt.Fprintf(&b, "[ripgrep could not read some folders: %s]\n", firstLineCut(res.Warnings))
	}
	return Text(b.String())
}
