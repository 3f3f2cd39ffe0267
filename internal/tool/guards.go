package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
		return errors.New("path is empty: pass a file path relative to the workspace folder, or an absolute one")
	case errors.Is(err, workspace.ErrNUL):
		return errors.New("path contains a NUL byte, which no file name can hold; remove it")
	case errors.Is(err, workspace.ErrTilde):
		return fmt.Errorf("path %q starts with ~, which is not expanded: pass an absolute path or one relative to the workspace", arg)
	case errors.Is(err, workspace.ErrURI):
		return fmt.Errorf("path %q is a URI Tether cannot use: only file:// URIs of this machine are taken (as the absolute path they name); otherwise pass a plain path, relative to the workspace or absolute", arg)
	case errors.Is(err, workspace.ErrDanglingLink):
		return fmt.Errorf("%s is a symbolic link to a missing target; Tether will not follow it. Ask the user what it should point to", arg)
	}
	return fmt.Errorf("cannot resolve %s: %w", arg, err)
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
		return loc, fmt.Errorf("%s is outside the workspace folders; Tether only changes files inside them. Pick a path inside %s", where, c.Env.Workspace.Primary())
	}
	return loc, nil
}

// PermitRead lets reads inside the workspace through and asks the user
// before reading anywhere else.
func (c *Call) PermitRead(ctx context.Context, loc workspace.Location) error {
	req, err := c.ReadApproval(loc)
	if err != nil || req == nil {
		if err != nil {
			c.refused = true
		}
		return err
	}
	if c.Prepare {
		c.noteAsk(*req)
		return nil
	}
	ans, err := c.Host().Approve(ctx, *req)
	if errors.Is(err, ErrNobodyToAsk) {
		c.refused = true
		return fmt.Errorf("%s is outside the workspace, so reading it needs the user's approval, and nobody can be asked here", loc.Abs)
	}
	if err != nil {
		return fmt.Errorf("%s is outside the workspace and the user could not be asked (%v)", loc.Abs, err)
	}
	switch ans.Answer {
	case protocol.AnswerYes, protocol.AnswerAlways:
		return nil
	case protocol.AnswerNo:
		c.refused = true
		return fmt.Errorf("the user declined reading %s; it did not happen. Stop and ask the user how to proceed", loc.Abs)
	}
	c.refused = true
	return fmt.Errorf("the user skipped reading %s; it did not happen. Carry on without it", loc.Abs)
}

// ReadApproval is the approval reading loc needs: nil when the read may go
// ahead without asking, an error when the permission mode refuses it.
func (c *Call) ReadApproval(loc workspace.Location) (*protocol.ApprovalRequestParams, error) {
	d, reason := permission.Decide(c.Env.Mode(), permission.Action{Tool: c.Name, Outside: !loc.Inside})
	switch d {
	case permission.Allow:
		return nil, nil
	case permission.Deny:
		return nil, errors.New(reason)
	}
	dir := loc.Real
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	return &protocol.ApprovalRequestParams{
		RequestID:   c.RequestID,
		Tool:        c.Name,
		Title:       fmt.Sprintf("Read %s (outside the workspace)", loc.Abs),
		Kind:        protocol.ApprovalOutside,
		Path:        loc.Abs,
		AlwaysScope: "reading in " + dir,
	}, nil
}

// StatFile stats a path that must be a regular file, with messages that say
// what to do instead.
func StatFile(loc workspace.Location, display string) (fs.FileInfo, error) {
	fi, err := os.Stat(loc.Real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist. Check the path with glob or list_dir", display)
	case err != nil:
		return nil, fmt.Errorf("cannot open %s: %v", display, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a file. Use list_dir to see what is in it", display)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file but %s; only regular files are read or changed", display, fsatomic.DescribeType(fi.Mode()))
	}
	return fi, nil
}

// RequireRead enforces the read guardrails before a change to an existing
// file: the session must have read it, it must not have changed since, and
// when full is set (overwrite, delete) every line must have been read.
func (c *Call) RequireRead(loc workspace.Location, fi fs.FileInfo, full bool, verb string) error {
	name := c.Env.Workspace.Rel(loc.Abs)
	rec := c.Session.Lookup(loc.Real)
	if rec == nil {
		return fmt.Errorf("read %s with read_file before you %s it: Tether only changes files you have seen", name, verb)
	}
	if rec.Stale(fi) {
		return fmt.Errorf("%s changed on disk since you last read it (its modification time or size differs): someone else or another tool wrote it. Read it again with read_file, then redo the change", name)
	}
	if full && !rec.Full() {
		return fmt.Errorf("to %s %s you must have read every line of it; you have seen lines %s of %d, not %s. Read the rest with read_file (offset/limit)%s",
			verb, name, orNone(textfile.FormatLineRanges(rec.Lines.Ranges())), rec.TotalLines, textfile.FormatLineRanges(rec.Lines.Missing(rec.TotalLines)), fullReadHint(verb))
	}
	return nil
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
