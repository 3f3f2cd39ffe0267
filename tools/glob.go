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

// Limits of glob's output, in paths.
const (
	globDefaultPaths = 500
	globMaxPaths     = 5000
)

type globArgs struct {
	Pattern    string `json:"pattern" jsonschema:"Glob matched against file paths relative to path: *.go (any depth), src/**/*.ts, cmd/*.go (direct children only), *.{ts,tsx}, docs/ (everything under docs), !*.md (all but)."`
	Path       string `json:"path,omitempty" jsonschema:"Folder to search in, relative to the workspace folder or absolute. Default: the workspace folder."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"Most paths to return."`
}

//go:embed glob.md
var globDoc string

// Glob is the glob tool.
var Glob = tool.New(tool.Def[globArgs]{
	Name:            "glob",
	Doc:             globDoc,
	Data:            func(*tool.Settings) any { return struct{ DefaultMax, Max int }{globDefaultPaths, globMaxPaths} },
	UserDescription: "Find files by pattern",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["pattern"].MinLength = jsonschema.Ptr(1)
		s.Properties["max_results"].Minimum = jsonschema.Ptr(1.0)
		s.Properties["max_results"].Maximum = jsonschema.Ptr(float64(globMaxPaths))
		s.Properties["max_results"].Description += fmt.Sprintf(" Default %d, at most %d.", globDefaultPaths, globMaxPaths)
	},
	Describe: func(a globArgs) string { return "Finding files matching " + a.Pattern },
	Run:      runGlob,
})

func runGlob(ctx context.Context, c *tool.Call, a globArgs) (tool.Result, error) {
	if c.Env.Settings.RgPath == "" {
		return noRipgrep("glob", "", nil), nil
	}
	g, err := search.CompileGlob(a.Pattern)
	if err != nil {
		return tool.Failf("invalid pattern: %v", err), nil
	}
	root, fi, err := searchDir(ctx, c, a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	if !fi.IsDir() {
		return tool.Failf("%s is a file, not a folder: glob searches folders. Pass its folder as path, or read it with read_file", root), nil
	}
	budget := c.Budget.OutputChars()
	q := search.FilesQuery{
		Rg:       c.Env.Settings.RgPath,
		Dir:      c.Env.Workspace.Primary(),
		Root:     root,
		Glob:     g,
		MaxPaths: limitArg(a.MaxResults, globDefaultPaths, globMaxPaths),
		MaxBytes: max(budget-footerRoom, budget/2),
	}
	res, err := search.Files(ctx, q)
	if err != nil {
		return searchFailed(ctx, "glob", c.Env.Settings.RgPath, err), nil
	}
	if len(res.Paths) == 0 {
		return tool.Text(fmt.Sprintf("No files match %s in %s (files ignored by .gitignore are not listed).", quoteArg(a.Pattern), folderName(root))), nil
	}
	var b strings.Builder
	for _, p := range res.Paths {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	if res.Stop != search.Complete {
		why := fmt.Sprintf("max_results=%d", q.MaxPaths)
		if res.Stop == search.AtBudget {
			why = "the output budget is full"
		}
		more := fmt.Sprintf("%d more match", res.Total-len(res.Paths))
		of := countNoun(res.Total, "path")
		if res.AtLeast {
			more, of = "more match", fmt.Sprintf("over %d files walked", search.MaxWalk)
		}
		fmt.Fprintf(&b, "[the first %d of %s in sorted order (%s); %s. Narrow the pattern or path to see the rest.]\n", len(res.Paths), of, why, more)
	}
	if res.Warnings != "" {
		fmt.Fprintf(&b, "[ripgrep could not read some folders: %s]\n", firstLineCut(res.Warnings))
	}
	return tool.Text(b.String()), nil
}
