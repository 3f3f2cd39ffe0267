package tools

import (
	"context"
	"fmt"

	"github.com/tether-dev/tether/internal/staging"
)

var opNames = map[Op]string{OpWrite: staging.OpWrite, OpDelete: staging.OpDelete, OpMove: staging.OpMove}

// stage keeps a plan as a staged change instead of writing it (dryRun).
func (c *Call) stage(p *Plan, d string) Result {
	if c.Env.Staging == nil {
		return Errorf("dry-run mode keeps changes as staged diffs, but no staging folder is set up here, so nothing was written. Switch to another permission mode to make changes")
	}
	e := staging.Entry{RequestID: c.RequestID, Tool: c.Name, Title: p.Title, Diff: d}
	for _, ch := range p.Changes {
		e.Changes = append(e.Changes, staging.Change{
			Op: opNames[ch.Op], Path: ch.Path.Abs, From: ch.From.Abs,
			Existed: ch.Existed, Before: ch.Before, After: ch.After,
		})
	}
	e, err := c.Env.Staging.Add(e)
	if err != nil {
		return Errorf("staging the change failed (%v); nothing was written", err)
	}
	return Result{Title: p.Title, Diff: d, Content: fmt.Sprintf(
		"Dry run: %s was staged as %s, not written; the file on disk is unchanged. The user reviews staged changes and applies or drops them (staged/apply, `tether staged apply %s`). Later changes are planned against the files on disk, not against staged ones.",
		p.Title, e.ID, e.ID)}
}

// ApplyStaged writes a staged change, as the user asked, after the same
// checks as any change: paths still inside the workspace, no unsaved
// editor buffer, and every file exactly as it was when the change was
// staged. It needs no approval: applying it is the user's own act.
func (c *Call) ApplyStaged(ctx context.Context, e staging.Entry) Result {
	p := &Plan{Title: e.Title, Done: "Applied the staged change " + e.ID + ": " + e.Title + "."}
	for _, sc := range e.Changes {
		ch := Change{Existed: sc.Existed, Before: sc.Before, After: sc.After}
		switch sc.Op {
		case staging.OpWrite:
			ch.Op = OpWrite
		case staging.OpDelete:
			ch.Op = OpDelete
		case staging.OpMove:
			ch.Op = OpMove
		default:
			return Errorf("staged change %s has an unknown operation %q; drop it", e.ID, sc.Op)
		}
		var err error
		if ch.Path, err = c.LocateWrite(sc.Path); err != nil {
			return Errorf("cannot apply %s: %v", e.ID, err)
		}
		if sc.From != "" {
			if ch.From, err = c.LocateWrite(sc.From); err != nil {
				return Errorf("cannot apply %s: %v", e.ID, err)
			}
		}
		p.Changes = append(p.Changes, ch)
	}
	if err := c.refuseDirty(p); err != nil {
		return Errorf("nothing was written: %v", err)
	}
	return c.write(ctx, p, e.Diff)
}
