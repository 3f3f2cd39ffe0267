package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// Locate resolves a path argument for reading.
func (c *Call) Locate(arg string) (workspace.Location, error) {
	loc, err := c.Env.Workspace.Locate(arg)
	return loc, pathAdvice(arg, err)
}

// Abs makes a path argument absolute, without resolving symlinks.
func (c *Call) Abs(arg string) (string, error) {
	abs, err := c.Env.Workspace.Abs(arg)
	return abs, pathAdvice(arg, err)
}

// pathAdvice turns workspace's refusal of a path argument into what the
// model should do about it.
func pathAdvice(arg string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, workspace.ErrEmptyPath):
		return Refusef("path is empty: pass a file path relative to the workspace folder, or an absolute one")
	case errors.Is(err, workspace.ErrNUL):
		return Refusef("path contains a NUL byte, which no file name can hold; remove it")
	case errors.Is(err, workspace.ErrTilde):
		return Refusef("path %q starts with ~, which is not expanded: pass an absolute path or one relative to the workspace", arg)
	case errors.Is(err, workspace.ErrURI):
		return Refusef("path %q is a URI Tether cannot use: only file:// URIs of this machine are taken (as the absolute path they name); otherwise pass a plain path, relative to the workspace or absolute", arg)
	case errors.Is(err, workspace.ErrDanglingLink):
		return Refusef("%s is a symbolic link to a missing target; Tether will not follow it. Ask the user what it should point to", arg)
	}
	return FileTrouble("resolve", arg, err)
}

// LocateWrite resolves a path argument for a change and refuses anything
// whose real path (symlinks resolved, "..", and for a new file its real
// parent) lies outside the workspace folders.
func (c *Call) LocateWrite(arg string) (workspace.Location, error) {
	loc, err := c.Locate(arg)
	if err != nil {
		return loc, err
	}
	if !loc.Inside {
		where := loc.Abs
		if loc.Real != loc.Abs {
			where = fmt.Sprintf("%s (really %s)", loc.Abs, loc.Real)
		}
		return loc, Refusef("%s is outside the workspace folders; Tether only changes files inside them%s. Pick a path inside %s", where, writeRootsNote(c.Env.Workspace), c.Env.Workspace.Primary())
	}
	return loc, nil
}

// writeRootsNote names the write roots for a refusal, where there are any.
func writeRootsNote(ws *workspace.Workspace) string {
	roots := ws.WriteRoots()
	if len(roots) == 0 {
		return " (the user can let changes reach another folder with the writeRoots setting)"
	}
	return " and the write roots " + strings.Join(roots, ", ")
}

// PermitRead lets reads inside the workspace through and asks the user
// before reading anywhere else, unless they answered "always" for that
// folder before (see readStep).
func (c *Call) PermitRead(ctx context.Context, loc workspace.Location) error {
	if loc.Inside {
		return nil
	}
	v := c.Authorize(ctx, c.readStep(loc))
	if !v.Allowed {
		return Refusef("%s", v.Refusal.Content)
	}
	return nil
}

// ReadApproval is the approval reading loc needs: nil when the read may go
// ahead without asking (inside the workspace, a permission mode that
// allows it, or a saved rule for its folder), an error when the permission
// mode refuses it.
func (c *Call) ReadApproval(loc workspace.Location) (*protocol.ApprovalRequestParams, error) {
	if loc.Inside {
		return nil, nil
	}
	s := c.readStep(loc)
	switch d, reason := permission.Decide(c.Env.Mode(), s.Action); d {
	case permission.Allow:
		return nil, nil
	case permission.Deny:
		return nil, Refusef("%s", reason)
	}
	if c.ruleAllows(s) {
		return nil, nil
	}
	req := s.Request
	req.RequestID, req.Tool = c.RequestID, c.Name
	return &req, nil
}

// readStep is the step of reading loc, outside the workspace. "Always"
// saves a rule for exactly one folder, by its real path (symlinks
// resolved): the folder the tool reads in, which is loc itself when it is
// a folder (list_dir, grep and glob there), else the folder holding it.
func (c *Call) readStep(loc workspace.Location) Step {
	dir := loc.Real
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	rule := permission.Rule{Kind: protocol.ApprovalOutside, Dir: dir}
	return Step{
		Request: protocol.ApprovalRequestParams{
			Title:       fmt.Sprintf("Read %s (outside the workspace)", loc.Abs),
			Kind:        protocol.ApprovalOutside,
			Path:        loc.Abs,
			AlwaysScope: rule.String(),
		},
		Action: permission.Action{Tool: c.Name, Outside: true},
		Always: &rule,
	}
}

// StatFile stats a path that must be a regular file, with refusals that
// say what to do instead; a fault of the file system is returned as it is.
func StatFile(loc workspace.Location, display string) (fs.FileInfo, error) {
	fi, err := os.Stat(loc.Real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, Refusef("%s does not exist. Check the path with glob or list_dir", display)
	case err != nil:
		return nil, FileTrouble("open", display, err)
	case fi.IsDir():
		return nil, Refusef("%s is a directory, not a file. Use list_dir to see what is in it", display)
	case !fi.Mode().IsRegular():
		return nil, Refusef("%s is not a regular file but %s; only regular files are read or changed", display, fsatomic.DescribeType(fi.Mode()))
	}
	return fi, nil
}

// RequireRead enforces the read guardrails before a change to an existing
// file, whose content is now data: the session must have read it, it must
// not have changed since (a new time or size over the same bytes is no
// change), and when full is set (overwrite, delete) every line must have
// been read.
func (c *Call) RequireRead(loc workspace.Location, fi fs.FileInfo, data []byte, full bool, verb string) error {
	name := c.Env.Workspace.Rel(loc.Abs)
	rec := c.Session.Lookup(loc.Real)
	if rec == nil {
		return Refusef("read %s with read_file before you %s it: Tether only changes files you have seen", name, verb)
	}
	if rec.Stale(fi) {
		if !rec.Same(data) {
			return c.staleRefusal(loc, name, rec, fi, data)
		}
		c.Session.Restamp(loc.Real, fi) // touched, not changed
	}
	if full && !rec.Full() {
		missing := rec.Lines.Missing(rec.TotalLines)
		if cut := cutAmong(rec, missing); len(cut) > 0 {
			return Refusef("to %s %s you must have read every byte of every line of it, and %s was cut short where read_file showed it, so it was never read whole (read_file cannot show a line that long). %s",
				verb, name, lineNoun(cut), cutLineHint(verb))
		}
		return Refusef("to %s %s you must have read every line of it; you have seen lines %s of %d, not %s. Read the rest with read_file (offset/limit)%s",
			verb, name, orNone(textfile.FormatLineRanges(rec.Lines.Ranges())), rec.TotalLines, textfile.FormatLineRanges(missing), fullReadHint(verb))
	}
	return nil
}

// cutAmong lists the lines of missing that read_file showed cut short.
func cutAmong(rec *ReadRecord, missing []textfile.LineRange) []textfile.LineRange {
	var out []textfile.LineRange
	for _, m := range missing {
		for _, c := range rec.Cut.Ranges() {
			if lo, hi := max(m.Start, c.Start), min(m.End, c.End); lo <= hi {
				out = append(out, textfile.LineRange{Start: lo, End: hi})
			}
		}
	}
	return out
}

// lineNoun names lines for a message: "line 2", "lines 2, 5-7".
func lineNoun(rs []textfile.LineRange) string {
	if len(rs) == 1 && rs[0].Start == rs[0].End {
		return fmt.Sprintf("line %d", rs[0].Start)
	}
	return "lines " + textfile.FormatLineRanges(rs)
}

func cutLineHint(verb string) string {
	if verb == "overwrite" {
		return "Change the file with edit_file instead (replacing what you have seen), add to its end with write_file append=true, or ask the user."
	}
	return "Ask the user whether it should be deleted; Tether will not delete what was never shown."
}

func fullReadHint(verb string) string {
	if verb == "overwrite" {
		return ", or change it with edit_file, or add to its end with write_file append=true"
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
