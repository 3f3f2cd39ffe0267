package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/tool"
)

// noRipgrep is the answer of a search tool when ripgrep cannot run. It
// names the missing program and how the user can provide it, and points
// at the tools that still work. It deliberately does not suggest a shell:
// an agent without one would waste a turn on the advice.
func noRipgrep(name, rgPath string, cause error) tool.Result {
	why := "was not found (neither the tether.rgPath setting nor PATH gives a usable rg)"
	if rgPath != "" {
		why = fmt.Sprintf("could not be started from %s", rgPath)
		var se *search.StartError
		if errors.As(cause, &se) {
			why += fmt.Sprintf(" (%v)", se.Err)
		}
	}
	return tool.Failf("%s needs ripgrep (rg), which %s. Ask the user to install ripgrep (the Debian/Ubuntu package is named ripgrep) or to point the tether.rgPath setting at it. Until then list_dir and read_file still work.", name, why)
}

// searchFailed turns a search error into the tool's answer: cancelled,
// ripgrep missing, or ripgrep's own complaint with advice.
func searchFailed(ctx context.Context, name, rgPath string, err error) tool.Result {
	var rgErr *search.RgError
	switch {
	case ctx.Err() != nil:
		return tool.Cancelled(name)
	case errors.Is(err, search.ErrNoRipgrep):
		return noRipgrep(name, rgPath, err)
	case errors.As(err, &rgErr) && strings.Contains(rgErr.Stderr, "regex"):
		return tool.Failf("%s: ripgrep rejected the pattern:\n%s\nThe pattern is a Rust regular expression (much like RE2 or Go's): escape the special characters ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally, and use [[:space:]] or \\s rather than a literal newline.", name, rgErr.Stderr)
	case errors.As(err, &rgErr):
		return tool.Failf("%s: ripgrep failed:\n%s\nCheck the path, or narrow the search.", name, rgErr.Stderr)
	}
	return tool.Failf("%s failed: %v", name, err)
}

// searchDir resolves a search tool's path argument ("" is the workspace
// folder), asks before searching outside the workspace, and returns
// ripgrep's path argument: relative to the primary folder, where ripgrep
// runs, or absolute.
func searchDir(ctx context.Context, c *tool.Call, arg string) (rgRoot string, fi os.FileInfo, err error) {
	if arg == "" {
		arg = "."
	}
	loc, err := c.Locate(arg)
	if err != nil {
		return "", nil, err
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	if err := c.PermitRead(ctx, loc); err != nil {
		return "", nil, err
	}
	fi, err = os.Stat(loc.Real)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", nil, tool.Refusef("%s does not exist. Check the path with list_dir, or find it with glob", name)
	case err != nil:
		return "", nil, tool.FileTrouble("open", name, err)
	case !fi.IsDir() && !fi.Mode().IsRegular():
		// ripgrep would read it and wait: a named pipe with no writer never
		// ends, and nothing could stop the wait.
		return "", nil, tool.Refusef("%s is %s, not a file or a folder; only files and folders are searched", name, fsatomic.DescribeType(fi.Mode()))
	}
	return name, fi, nil
}

// limitArg applies a default and a maximum to an optional count argument.
func limitArg(n, def, most int) int {
	if n <= 0 {
		return def
	}
	return min(n, most)
}
