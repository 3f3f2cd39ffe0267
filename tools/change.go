package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/diff"
	"github.com/tether-dev/tether/fsatomic"
	"github.com/tether-dev/tether/permission"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/textfile"
	"github.com/tether-dev/tether/workspace"
)

// Op is the kind of file change.
type Op int

const (
	OpWrite  Op = iota // create or replace a file's content
	OpDelete           // remove a file
	OpMove             // rename From to Path, never over an existing file
)

// Change is one file change, computed without touching the disk so that it
// can be previewed, approved, checkpointed and only then applied.
type Change struct {
	Op Op
	// Path is the target (for a move, the destination).
	Path workspace.Location
	// From is a move's source.
	From workspace.Location
	// Before is the content the change was computed against; nil with
	// Existed false for a new file. The change is refused if the file no
	// longer holds exactly this when it is applied.
	Before  []byte
	Existed bool
	// After is the new content of an OpWrite.
	After []byte
	// FullyKnown says the agent knows every line of After (it wrote them
	// all, or had read the whole file), for the read record afterwards.
	FullyKnown bool
	// Unseen says the user rewrote After when approving it: the agent has
	// not seen the result, so its read record is dropped.
	Unseen bool
}

// Plan is what a file-changing tool intends: its changes, a title for the
// approval, and the message for the model once applied.
type Plan struct {
	Title   string
	Changes []Change
	// Done is told to the model after the changes are written.
	Done string
}

// fileLocks serialises changes to the same file across sessions, so two
// concurrent edits cannot both pass the stale check and lose one another.
var fileLocks = &pathLocks{m: map[string]*lockEntry{}}

type pathLocks struct {
	mu sync.Mutex
	m  map[string]*lockEntry
}

type lockEntry struct {
	mu   sync.Mutex
	refs int
}

// lock takes the locks for paths in a fixed order and returns the unlock.
func (l *pathLocks) lock(paths []string) func() {
	sort.Strings(paths)
	var held []*lockEntry
	var names []string
	for i, p := range paths {
		if i > 0 && p == paths[i-1] {
			continue
		}
		l.mu.Lock()
		e := l.m[p]
		if e == nil {
			e = &lockEntry{}
			l.m[p] = e
		}
		e.refs++
		l.mu.Unlock()
		e.mu.Lock()
		held = append(held, e)
		names = append(names, p)
	}
	return func() {
		for i, e := range held {
			e.mu.Unlock()
			l.mu.Lock()
			if e.refs--; e.refs == 0 {
				delete(l.m, names[i])
			}
			l.mu.Unlock()
		}
	}
}

// diffOf renders a change as a unified diff with workspace-relative names.
func (c *Call) diffOf(ch Change) string {
	ws := c.Env.Workspace
	switch ch.Op {
	case OpDelete:
		return diff.Unified("a/"+ws.Rel(ch.Path.Abs), "/dev/null", ch.Before, nil)
	case OpMove:
		return fmt.Sprintf("rename from %s\nrename to %s\n", ws.Rel(ch.From.Abs), ws.Rel(ch.Path.Abs))
	}
	if !ch.Existed {
		return diff.Unified("/dev/null", "b/"+ws.Rel(ch.Path.Abs), nil, ch.After)
	}
	name := ws.Rel(ch.Path.Abs)
	return diff.Unified("a/"+name, "b/"+name, ch.Before, ch.After)
}

func (c *Call) planDiff(p *Plan) string {
	var parts []string
	for _, ch := range p.Changes {
		parts = append(parts, c.diffOf(ch))
	}
	return strings.Join(parts, "")
}

// action describes a plan to the permission rules.
func (c *Call) action(p *Plan) permission.Action {
	a := permission.Action{Tool: c.Name, Changes: true}
	var roots []string
	for _, r := range c.Env.Workspace.Roots() {
		roots = append(roots, r.Path)
	}
	for _, ch := range p.Changes {
		for _, loc := range []workspace.Location{ch.Path, ch.From} {
			if loc.Real == "" {
				continue
			}
			if !loc.Inside {
				a.Outside = true
			}
			if permission.Sensitive(loc.Real, roots) {
				a.Sensitive = true
			}
		}
	}
	return a
}

// Apply runs a plan through the guardrails every change shares: the
// permission mode, the user's approval, a last check that nothing changed
// underneath, the undo checkpoint, and an atomic write. In a preview it
// only describes what would happen.
func (c *Call) Apply(ctx context.Context, p *Plan) Result {
	d := c.planDiff(p)
	decision, reason := permission.Decide(c.Env.Mode, c.action(p))
	if decision == permission.Deny {
		return Result{Content: reason, IsError: true, Diff: d, Title: p.Title}
	}
	if c.Prepare {
		return Result{Title: p.Title, Content: p.Title, Diff: d, NeedsApproval: decision == permission.Ask}
	}
	if decision == permission.Ask {
		if r, ok := c.approve(ctx, p, d); !ok {
			return r
		}
	}

	var paths []string
	for _, ch := range p.Changes {
		paths = append(paths, ch.Path.Real)
		if ch.Op == OpMove {
			paths = append(paths, ch.From.Real)
		}
	}
	defer fileLocks.lock(paths)()

	for _, ch := range p.Changes {
		if err := verifyUnchanged(ch); err != nil {
			return Errorf("nothing was written: %v", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return Errorf("cancelled before writing; nothing was changed")
	}
	for _, ch := range p.Changes {
		if err := c.applyOne(ch); err != nil {
			return Result{Content: fmt.Sprintf("writing %s failed: %v. The file is as it was before this call.", c.Env.Workspace.Rel(ch.Path.Abs), err), IsError: true, Diff: d}
		}
	}
	return Result{Content: p.Done, Diff: d, Title: p.Title}
}

// approve asks the user. ok is false when the plan must not be applied;
// the result then says why, in words the model cannot mistake for success.
func (c *Call) approve(ctx context.Context, p *Plan, d string) (Result, bool) {
	if c.Env.Host == nil {
		return Errorf("%s needs the user's approval and nobody can be asked here; nothing was changed. Ask the user to allow it (for example, run with --yes or in acceptEdits mode).", c.Name), false
	}
	req := protocol.ApprovalRequestParams{
		RequestID:   c.RequestID,
		Tool:        c.Name,
		Title:       p.Title,
		Kind:        protocol.ApprovalEdit,
		Diff:        d,
		AlwaysScope: "file changes inside this workspace",
	}
	if a := c.action(p); a.Outside {
		req.Kind = protocol.ApprovalOutside
		req.AlwaysScope = "changes in " + filepath.Dir(p.Changes[0].Path.Real)
	}
	if len(p.Changes) == 1 {
		ch := p.Changes[0]
		req.Path = ch.Path.Abs
		if ch.Op == OpWrite {
			req.Original, req.Proposed = string(ch.Before), string(ch.After)
		}
	}
	ans, err := c.Env.Host.Approve(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("cancelled while waiting for approval; nothing was changed"), false
		}
		return Errorf("%s needs the user's approval, which could not be asked (%v); nothing was changed.", c.Name, err), false
	}
	switch ans.Answer {
	case protocol.AnswerYes, protocol.AnswerAlways:
		if ans.Content != nil && len(p.Changes) == 1 && p.Changes[0].Op == OpWrite {
			ch := &p.Changes[0]
			if *ans.Content != string(ch.After) {
				ch.After = []byte(*ans.Content)
				ch.FullyKnown, ch.Unseen = false, true
				p.Done += " The user edited your proposed change before approving it: the file now holds their version. Read it again before editing it further."
			}
		}
		return Result{}, true
	case protocol.AnswerSkip:
		return Errorf("The user skipped this step: %s did not happen and nothing was changed. Carry on without it, and do not report it as done.", p.Title), false
	case protocol.AnswerNo:
		return Errorf("The user declined: %s did not happen and nothing was changed. Stop and ask the user how they want to proceed.", p.Title), false
	}
	return Errorf("the approval answer %q is not one of yes, always, skip, no; nothing was changed", ans.Answer), false
}

// verifyUnchanged refuses a change whose file moved on since it was planned
// (the user typed while the approval was open, another tool wrote it).
func verifyUnchanged(ch Change) error {
	path := ch.Path.Real
	if ch.Op == OpMove {
		if _, err := os.Lstat(ch.Path.Real); err == nil {
			return fmt.Errorf("%s already exists; move_file never overwrites", ch.Path.Abs)
		}
		path = ch.From.Real
	}
	cur, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if ch.Existed {
			return fmt.Errorf("%s was removed while this change waited; read the folder again", ch.Path.Abs)
		}
		return nil
	case err != nil:
		return err
	case !ch.Existed:
		return fmt.Errorf("%s was created by someone else while this change waited; read it first", ch.Path.Abs)
	case ch.Op == OpMove:
		return nil
	case !bytes.Equal(cur, ch.Before):
		return fmt.Errorf("%s changed on disk while this change waited (the user or another tool wrote it); read it again and redo the edit", ch.Path.Abs)
	}
	return nil
}

func (c *Call) checkpoint(path string) error {
	if c.Env.Checkpoints == nil {
		return nil
	}
	if err := c.Env.Checkpoints.Save(c.RequestID, path); err != nil {
		return fmt.Errorf("saving the undo checkpoint: %w", err)
	}
	return nil
}

func (c *Call) wrote(path string) {
	if c.Env.Checkpoints == nil {
		return
	}
	if err := c.Env.Checkpoints.Wrote(c.RequestID, path); err != nil && c.Env.Log != nil {
		c.Env.Log.Warn("recording what was written for undo", "path", path, "err", err)
	}
}

func (c *Call) applyOne(ch Change) error {
	switch ch.Op {
	case OpWrite:
		if err := c.checkpoint(ch.Path.Real); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(ch.Path.Real), 0o755); err != nil {
			return err
		}
		if err := fsatomic.WriteFile(ch.Path.Real, ch.After, 0o644); err != nil {
			return err
		}
		c.wrote(ch.Path.Real)
		if fi, err := os.Stat(ch.Path.Real); err == nil && !ch.Unseen {
			c.Session.AfterWrite(ch.Path.Real, fi, textfile.CountLines(ch.After), ch.FullyKnown)
		} else {
			c.Session.Forget(ch.Path.Real)
		}
	case OpDelete:
		if err := c.checkpoint(ch.Path.Real); err != nil {
			return err
		}
		if err := os.Remove(ch.Path.Real); err != nil {
			return err
		}
		if err := fsatomic.SyncDir(filepath.Dir(ch.Path.Real)); err != nil {
			return err
		}
		c.wrote(ch.Path.Real)
		c.Session.Forget(ch.Path.Real)
	case OpMove:
		if err := c.checkpoint(ch.From.Real); err != nil {
			return err
		}
		if err := c.checkpoint(ch.Path.Real); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(ch.Path.Real), 0o755); err != nil {
			return err
		}
		if err := fsatomic.RenameNoReplace(ch.From.Real, ch.Path.Real); err != nil {
			if errors.Is(err, fsatomic.ErrExists) {
				return fmt.Errorf("%s already exists; move_file never overwrites", ch.Path.Abs)
			}
			return err
		}
		c.wrote(ch.From.Real)
		c.wrote(ch.Path.Real)
		if fi, err := os.Stat(ch.Path.Real); err == nil {
			c.Session.Moved(ch.From.Real, ch.Path.Real, fi)
		}
	}
	return nil
}
