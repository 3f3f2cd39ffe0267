package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/tether-dev/tether/internal/search"
)

// LookRg finds ripgrep: the configured path if given, else rg on PATH.
func LookRg(configured string) (string, error) {
	if configured != "" {
		fi, err := os.Stat(configured)
		if err != nil {
			return "", fmt.Errorf("the configured rgPath %s: %w", configured, err)
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("the configured rgPath %s is not an executable file", configured)
		}
		return configured, nil
	}
	p, err := exec.LookPath("rg")
	if err != nil {
		return "", fmt.Errorf("ripgrep (rg) is not installed or not on PATH")
	}
	return p, nil
}

// noRipgrep is the answer of a search tool when ripgrep cannot run. It
// names the missing program and how the user can provide it, and points
// at the tools that still work. It deliberately does not suggest a shell:
// an agent without one would waste a turn on the advice.
func noRipgrep(tool, rgPath string, cause error) Result {
	why := "was not found (neither the tether.rgPath setting nor PATH gives a usable rg)"
	if rgPath != "" {
		why = fmt.Sprintf("could not be started from %s", rgPath)
		var se *search.StartError
		if errors.As(cause, &se) {
			why += fmt.Sprintf(" (%v)", se.Err)
		}
	}
	return Errorf("%s needs ripgrep (rg), which %s. Ask the user to install ripgrep (the Debian/Ubuntu package is named ripgrep) or to point the tether.rgPath setting at it. Until then list_dir and read_file still work.", tool, why)
}

// searchFailed turns a search error into the tool's answer: cancelled,
// ripgrep missing, or ripgrep's own complaint with advice.
func searchFailed(ctx context.Context, tool, rgPath string, err error) Result {
	var rgErr *search.RgError
	switch {
	case ctx.Err() != nil:
		return cancelled(tool)
	case errors.Is(err, search.ErrNoRipgrep):
		return noRipgrep(tool, rgPath, err)
	case errors.As(err, &rgErr) && strings.Contains(rgErr.Stderr, "regex"):
		return Errorf("%s: ripgrep rejected the pattern:\n%s\nThe pattern is a Rust regular expression (much like RE2 or Go's): escape the special characters ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally, and use [[:space:]] or \\s rather than a literal newline.", tool, rgErr.Stderr)
	case errors.As(err, &rgErr):
		return Errorf("%s: ripgrep failed:\n%s\nCheck the path, or narrow the search.", tool, rgErr.Stderr)
	}
	return Errorf("%s failed: %v", tool, err)
}

// searchDir resolves a search tool's path argument ("" is the workspace
// folder), asks before searching outside the workspace, and returns
// ripgrep's path argument: relative to the primary folder, where ripgrep
// runs, or absolute.
func (c *Call) searchDir(ctx context.Context, arg string) (rgRoot string, fi os.FileInfo, err error) {
	if arg == "" {
		arg = "."
	}
	loc, err := c.locate(arg)
	if err != nil {
		return "", nil, err
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	if err := c.permitRead(ctx, loc); err != nil {
		return "", nil, err
	}
	fi, err = os.Stat(loc.Real)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", nil, fmt.Errorf("%s does not exist. Check the path with list_dir, or find it with glob", name)
	case err != nil:
		return "", nil, fmt.Errorf("cannot open %s: %v", name, err)
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
