package tool

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// stage keeps a plan as a staged change instead of writing it (dryRun).
func (c *Call) stage(p *Plan, d string) (Result, error) {
	if c.Env.Staging == nil {
		return Failf("dry-run mode keeps changes as staged diffs, but no staging folder is set up here, so nothing was written. Switch to another permission mode to make changes").WithStatus(protocol.StatusRefused), nil
	}
	e := staging.Entry{RequestID: c.RequestID, Tool: c.Name, Title: p.Title, Diff: d}
	for _, ch := range p.Changes {
		e.Changes = append(e.Changes, staging.Change{
			Kind: ch.Kind, Path: ch.Path.Abs, From: ch.From.Abs,
			Existed: ch.Existed, Before: ch.Before, After: ch.After,
		})
	}
	e, err := c.Env.Staging.Add(e)
	if err != nil {
		return Failf("Tether failed: staging the change failed because of a fault on this machine, not in your call (%v); nothing was written. Tell the user.", err).WithStatus(protocol.StatusFailed), err
	}
	return Result{Title: p.Title, Diff: d, Status: protocol.StatusStaged, Content: fmt.Sprintf(
		"Dry run: %s was staged as %s, not written; the file on disk is unchanged. The user reviews staged changes and applies or drops them (staged/apply, `tether staged apply %s`). Later changes are planned against the files on disk, not against staged ones.",
		p.Title, e.ID, e.ID)}, nil
}

// ApplyStaged writes a staged change, as the user asked, after the same
// checks as any change: paths still inside the workspace, names fit for a
// diff, no unsaved editor buffer, and every file exactly as it was when
// the change was staged. It is written through the same confined path as
// any change. It needs no approval: applying it is the user's own act.
func (c *Call) ApplyStaged(ctx context.Context, e staging.Entry) (Result, error) {
	p := &Plan{Title: e.Title, Done: "Applied the staged change " + e.ID + ": " + e.Title + "."}
	for _, sc := range e.Changes {
		ch := Change{Kind: sc.Kind, Existed: sc.Existed, Before: sc.Before, After: sc.After}
		switch sc.Kind {
		case Write, Delete, Move:
		default:
			return Failf("staged change %s has an unknown kind of change %q; drop it", e.ID, sc.Kind), nil
		}
		var err error
		if ch.Path, err = c.locateStaged(sc.Path); err != nil {
			return cannotApply(e.ID, err)
		}
		if sc.From != "" {
			if ch.From, err = c.locateStaged(sc.From); err != nil {
				return cannotApply(e.ID, err)
			}
		}
		p.Changes = append(p.Changes, ch)
	}
	if err := c.checkNewNames(p); err != nil {
		return Failf("cannot apply %s, so nothing was written: %v", e.ID, err), nil
	}
	if err := c.refuseDirty(p); err != nil {
		return Failf("nothing was written: %v", err), nil
	}
	return c.write(ctx, p, e.Diff)
}

// cannotApply is the result of a staged change whose path cannot be
// written now: a refusal says why; a fault of the file system is returned
// too, for the caller to log.
func cannotApply(id string, err error) (Result, error) {
	if IsRefusal(err) {
		return Failf("cannot apply %s: %v", id, err), nil
	}
	return Failf("Tether failed: %s could not be applied because of a fault on this machine (%v); nothing was written. Tell the user.", id, err), err
}

// locateStaged resolves a staged change's path: a file inside the
// workspace, or one of the project's memories.
func (c *Call) locateStaged(path string) (workspace.Location, error) {
	if filepath.IsAbs(path) {
		if real, err := workspace.Real(path); err == nil && c.Env.Memory.Holds(real) {
			return workspace.Location{Abs: path, Real: real}, nil
		}
	}
	return c.LocateWrite(path)
}
