package tool

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

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// ChangeKind is what a Change does to its file: the kinds a staged change
// keeps on disk.
type ChangeKind = staging.Kind

const (
	Write  = staging.Write  // create or replace a file's content
	Delete = staging.Delete // remove a file
	Move   = staging.Move   // rename From to Path, never over an existing file
)

// Change is one file change, computed without touching the disk so that it
// can be previewed, approved, checkpointed and only then applied.
type Change struct {
	Kind ChangeKind
	// Path is the target (for a move, the destination).
	Path workspace.Location
	// From is a move's source.
	From workspace.Location
	// Before is the content the change was computed against; nil with
	// Existed false for a new file. The change is refused if the file no
	// longer holds exactly this when it is applied.
	Before  []byte
	Existed bool
	// After is the new content of an Write.
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

// diffOf renders a change as a unified diff with workspace-relative names
// (memory/<name>.md for a project memory).
func (c *Call) diffOf(ch Change) string {
	rel := c.display
	switch ch.Kind {
	case Delete:
		return diff.Unified("a/"+rel(ch.Path), "/dev/null", ch.Before, nil)
	case Move:
		return fmt.Sprintf("rename from %s\nrename to %s\n", rel(ch.From), rel(ch.Path))
	}
	if !ch.Existed {
		return diff.Unified("/dev/null", "b/"+rel(ch.Path), nil, ch.After)
	}
	name := rel(ch.Path)
	return diff.Unified("a/"+name, "b/"+name, ch.Before, ch.After)
}

// display names a changed file for people and models.
func (c *Call) display(loc workspace.Location) string {
	if c.Env.Memory.Holds(loc.Real) {
		return c.Env.Memory.Display(loc.Real)
	}
	return c.Env.Workspace.Rel(loc.Abs)
}

// inMemory reports whether every change of p is to a project memory.
func (c *Call) inMemory(p *Plan) bool {
	for _, ch := range p.Changes {
		for _, loc := range []workspace.Location{ch.Path, ch.From} {
			if loc.Real != "" && !c.Env.Memory.Holds(loc.Real) {
				return false
			}
		}
	}
	return len(p.Changes) > 0
}

func (c *Call) planDiff(p *Plan) string {
	var parts []string
	for _, ch := range p.Changes {
		parts = append(parts, c.diffOf(ch))
	}
	return strings.Join(parts, "")
}

// action describes a plan to the permission rules. A plan that writes
// project memory is a change inside a confined store, not outside the
// workspace; made after the request read web content, it must ask.
func (c *Call) action(p *Plan) permission.Action {
	a := permission.Action{Tool: c.Name, Changes: true}
	if c.inMemory(p) {
		a.Untrusted = len(c.Untrusted()) > 0
		return a
	}
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

// Apply runs a plan through the guardrails every change shares: unsaved
// editor buffers, the permission mode, the user's approval (who may keep
// only some hunks or rewrite the proposal), a last check that nothing
// changed underneath, the undo checkpoint, and an atomic write. In dryRun
// mode the plan is staged instead of written; in a preview it is only
// described.
func (c *Call) Apply(ctx context.Context, p *Plan) (Result, error) {
	if err := c.refuseDirty(p); err != nil {
		return Failf("nothing was written: %v", err), nil
	}
	if srcs := c.Untrusted(); len(srcs) > 0 && c.inMemory(p) {
		p.Title += " (this request read content from outside: " + listSources(srcs) + ")"
	}
	d := c.planDiff(p)
	if c.Env.Mode() == protocol.ModeDryRun {
		if c.Prepare {
			return Result{Title: p.Title, Content: p.Title + " (dry run: it would be staged, not written)", Diff: d}, nil
		}
		return c.stage(p, d)
	}
	v := c.Authorize(ctx, c.changeStep(p, d))
	if !v.Allowed {
		r := v.Refusal
		r.Diff, r.Title = d, p.Title
		return r, nil
	}
	if c.Prepare {
		return Result{Title: p.Title, Content: p.Title, Diff: d, NeedsApproval: v.Asked}, nil
	}
	if v.Asked {
		if r, ok := c.takeAnswer(p, v.Answer); !ok {
			return r, nil
		}
		if len(p.Changes) == 1 && p.Changes[0].Unseen { // the user changed what is written
			d = c.planDiff(p)
		}
	}
	return c.write(ctx, p, d)
}

// listSources names a request's outside sources for a title: the first
// few, and how many more.
func listSources(srcs []string) string {
	const shown = 3
	if len(srcs) <= shown {
		return strings.Join(srcs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(srcs[:shown], ", "), len(srcs)-shown)
}

// changeStep describes a plan for Authorize. For a single file's new
// content the user is also given the hunks, to keep or drop one by one.
func (c *Call) changeStep(p *Plan, d string) Step {
	req := protocol.ApprovalRequestParams{Title: p.Title, Kind: protocol.ApprovalEdit, Diff: d}
	var detail func(*protocol.ApprovalRequestParams)
	if len(p.Changes) == 1 {
		ch := p.Changes[0]
		req.Path = ch.Path.Abs
		if ch.Kind == Write {
			detail = func(req *protocol.ApprovalRequestParams) {
				req.Original, req.Proposed = string(ch.Before), string(ch.After)
				req.Hunks = wireHunks(diff.Hunks(ch.Before, ch.After))
			}
		}
	}
	a := c.action(p)
	if a.Outside {
		req.Kind = protocol.ApprovalOutside
	}
	if c.inMemory(p) {
		req.Kind = protocol.ApprovalMemory
		if a.Untrusted {
			req.Untrusted = c.Untrusted()
		}
	}
	return Step{Request: req, Action: a, Always: &permission.Rule{Kind: req.Kind}, Detail: detail}
}

// wireHunks converts diff hunks to the protocol's form.
func wireHunks(hs []diff.Hunk) []protocol.Hunk {
	out := make([]protocol.Hunk, len(hs))
	for i, h := range hs {
		lines := make([]string, len(h.Lines))
		for j, l := range h.Lines {
			lines[j] = string(l.Kind) + strings.TrimRight(l.Text, "\r\n")
		}
		out[i] = protocol.Hunk{ID: h.ID, OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines, Lines: lines}
	}
	return out
}

// takeAnswer applies what the user did in the approval: kept only some
// hunks, or rewrote the proposal. The model is told exactly what was
// written instead of what it asked for. ok is false when nothing is left
// to write.
func (c *Call) takeAnswer(p *Plan, ans protocol.ApprovalRequestResult) (Result, bool) {
	if len(p.Changes) != 1 || p.Changes[0].Kind != Write {
		return Result{}, true
	}
	ch := &p.Changes[0]
	switch {
	case ans.Content != nil:
		final := []byte(*ans.Content)
		if bytes.Equal(final, ch.After) {
			return Result{}, true
		}
		changed := diff.Unified("your proposal", "what the user approved", ch.After, final)
		ch.After, ch.FullyKnown, ch.Unseen = final, false, true
		p.Done += "\nThe user edited your proposed change before approving it, so the file holds their version. How it differs from what you proposed:\n" +
			CapHeadTail(changed, c.Budget.OutputChars()/4) + "Read the file again before changing it further."
	case ans.Hunks != nil:
		hunks := diff.Hunks(ch.Before, ch.After)
		kept, dropped, err := splitHunks(hunks, ans.Hunks)
		if err != nil {
			return Failf("the approval answer was not usable (%v), so nothing was written", err), false
		}
		if len(kept) == 0 {
			return Failf("The user dropped every hunk of this change: %s did not happen and nothing was written. Carry on without it, and do not report it as done.", p.Title), false
		}
		if len(dropped) == 0 {
			return Result{}, true
		}
		ch.After, ch.FullyKnown, ch.Unseen = diff.ApplyHunks(ch.Before, hunks, kept), false, true
		p.Done += fmt.Sprintf("\nThe user kept only part of your change: hunk(s) %s of %d were written and hunk(s) %s were dropped, so those lines are as they were. The diff is what was written. Read the file again before changing it further.",
			joinInts(kept), len(hunks), joinInts(dropped))
	}
	return Result{}, true
}

// splitHunks checks the kept IDs against the hunks and lists the dropped ones.
func splitHunks(hunks []diff.Hunk, keep []int) (kept, dropped []int, err error) {
	want := map[int]bool{}
	for _, id := range keep {
		if id < 1 || id > len(hunks) {
			return nil, nil, fmt.Errorf("it keeps hunk %d, but the change has %d", id, len(hunks))
		}
		want[id] = true
	}
	for _, h := range hunks {
		if want[h.ID] {
			kept = append(kept, h.ID)
		} else {
			dropped = append(dropped, h.ID)
		}
	}
	return kept, dropped, nil
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// refuseDirty stops a change to a file the user is editing and has not
// saved: the editor would then hold two versions and one would be lost.
func (c *Call) refuseDirty(p *Plan) error {
	for _, ch := range p.Changes {
		for _, loc := range []string{ch.Path.Real, ch.From.Real} {
			if loc != "" && c.Env.Dirty.Has(loc) {
				return fmt.Errorf("%s has unsaved changes in the editor, and writing it now would conflict with them. Ask the user to save (or revert) it, then read it again", c.Env.Workspace.Rel(loc))
			}
		}
	}
	return nil
}

// write applies an authorised plan: lock, compare, checkpoint, write. Then,
// outside the locks, it waits briefly for the editor's fresh diagnostics.
// A refusal found at the last moment (the file moved on) is a Result; a
// fault of the disk or the undo store is an error, with a Result that says
// what was and was not written.
func (c *Call) write(ctx context.Context, p *Plan, d string) (Result, error) {
	var paths, written []string
	for _, ch := range p.Changes {
		paths = append(paths, ch.Path.Real)
		switch ch.Kind {
		case Move:
			paths = append(paths, ch.From.Real)
			written = append(written, ch.Path.Real)
		case Write:
			written = append(written, ch.Path.Real)
		}
	}
	unlock := fileLocks.lock(paths)
	for _, ch := range p.Changes {
		if err := verifyUnchanged(ch); err != nil {
			unlock()
			return Failf("nothing was written: %v", err), nil
		}
	}
	if err := ctx.Err(); err != nil {
		unlock()
		return Failf("cancelled before writing; nothing was changed"), nil
	}
	if c.inMemory(p) {
		written = nil // the editor checks no memory file
	}
	watch := c.watchProblems(written)
	for i, ch := range p.Changes {
		if err := c.applyOne(ch); err != nil {
			unlock()
			return Result{Content: c.faultReport(p, i, err), IsError: true, Diff: d}, err
		}
	}
	unlock()
	return Result{Content: p.Done + watch.report(ctx), Diff: d, Title: p.Title}, nil
}

// faultReport tells the model what a fault while writing change i of p
// left behind: the changes before it were written, it and those after it
// were not.
func (c *Call) faultReport(p *Plan, i int, err error) string {
	name := c.display(p.Changes[i].Path)
	msg := fmt.Sprintf("writing %s failed because of a fault on this machine, not in your call (%v), so %s was not changed.", name, err, name)
	if i > 0 {
		var done []string
		for _, ch := range p.Changes[:i] {
			done = append(done, c.display(ch.Path))
		}
		msg += " These were written before it: " + strings.Join(done, ", ") + "; undo puts them back."
	}
	return msg + " Tell the user."
}

// verifyUnchanged refuses a change whose file moved on since it was planned
// (the user typed while the approval was open, another tool wrote it).
func verifyUnchanged(ch Change) error {
	path := ch.Path.Real
	if ch.Kind == Move {
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
	case ch.Kind == Move:
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
	if err := c.Env.Checkpoints.Wrote(c.RequestID, path); err != nil {
		c.Log().Warn("recording what was written for undo", "path", path, "err", err)
	}
}

func (c *Call) applyOne(ch Change) error {
	switch ch.Kind {
	case Write:
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
	case Delete:
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
	case Move:
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
