package tool

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/overlay"
)

// applySet applies the items of a change set the user (or the mode) let
// through: every path's prior state saved in the checkpoint first, in one
// flush; then removals, children before their folder; then folders, files
// and links, folders before what they hold; each file atomically (renamed
// into place from the layer, or written to a temporary file and renamed);
// then each folder synced once, and what was left recorded for undo.
func (c *Call) applySet(ctx context.Context, todo []*setItem, command string) (Result, error) {
	if len(todo) == 0 {
		return Result{}, nil
	}
	sc, _ := c.Env.Checkpoints.(SetCheckpointer)
	if c.Env.Checkpoints != nil && sc == nil {
		return Failf("the undo store here cannot save a command's changes, so none were applied: the workspace is as it was. Tell the user."), errors.New("tool: the checkpoint store does not save change sets")
	}
	paths := make([]string, len(todo))
	keys := make([]string, len(todo))
	for i, it := range todo {
		paths[i] = it.abs
		keys[i] = c.Env.Workspace.Key(it.abs)
	}
	if err := ctx.Err(); err != nil {
		return Failf("cancelled before the command's changes were applied; none were, and the workspace is as it was before it ran"), nil
	}
	if sc != nil {
		if err := sc.SaveSet(c.RequestID, paths, "the changes of `"+oneLineCommand(command)+"`"); err != nil {
			return Failf("saving the undo checkpoint failed because of a fault on this machine (%v), so none of the command's changes were applied: the workspace is as it was. Tell the user.", err), err
		}
	}
	if afterSaveHook != nil {
		afterSaveHook()
	}
	unlock := fileLocks.lock(keys)
	defer unlock()
	synced := map[string]bool{}
	for _, it := range todo {
		if !it.layer.Copy && !synced[it.layer.Upper] {
			synced[it.layer.Upper] = true
			if err := it.layer.Sync(); err != nil {
				c.abandonSet(sc, paths)
				return Failf("the command's output could not be made durable (%v), so none of it was applied: the workspace is as it was. Tell the user.", err), err
			}
		}
	}
	failed := map[*setItem]error{}
	dirs := map[dirOf]bool{}
	mover := overlay.NewMover()
	defer mover.Close()
	// Removals first: a folder that goes, or is replaced, after what it held.
	for _, it := range todo {
		if it.ch.Before.Type == overlay.None || it.ch.Before.Type == it.ch.After.Type {
			continue
		}
		if err := c.removeOld(it, dirs); err != nil {
			failed[it] = err
		}
	}
	for _, it := range todo {
		if it.ch.After.Type == overlay.None || failed[it] != nil {
			continue
		}
		if err := c.placeNew(it, dirs, mover); err != nil {
			failed[it] = err
		}
	}
	syncErrs := syncDirs(dirs)
	var applied, failedPaths []string
	for _, it := range todo {
		if failed[it] == nil {
			applied = append(applied, it.abs)
		} else {
			failedPaths = append(failedPaths, it.abs)
		}
	}
	if sc != nil {
		if err := sc.WroteSet(c.RequestID, paths); err != nil {
			c.Log().Warn("recording what a command's changes left, for undo", "err", err)
		}
		for _, p := range failedPaths {
			if err := c.Env.Checkpoints.Abandon(c.RequestID, p); err != nil {
				c.Log().Warn("dropping an undo entry for a change that did not happen", "path", p, "err", err)
			}
		}
		if err := sc.Applied(c.RequestID); err != nil {
			c.Log().Warn("recording that a command's changes were applied", "err", err)
		}
	}
	for _, it := range todo {
		if it.ch.After.Type == overlay.File && failed[it] == nil {
			c.Session.Forget(it.abs) // the agent has not read what the command wrote
		}
	}
	msg := c.appliedSummary(todo, failed)
	var err error
	if len(syncErrs) > 0 {
		err = errors.Join(syncErrs...)
		msg += fmt.Sprintf("\nThe disk did not confirm that these changes are safely stored (%v): a power cut could still take some back. Tell the user.", err)
	}
	return Result{Content: msg, IsError: len(failed) == len(todo)}, err
}

// syncDirs syncs each folder once, several at a time: the file system
// commits flushes that come together in one go.
func syncDirs(dirs map[dirOf]bool) []error {
	list := make([]dirOf, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	errs := make([]error, len(list))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(list), 8) {
		wg.Go(func() {
			for i := range next {
				if err := fsatomic.SyncDirIn(list[i].root, list[i].dir); err != nil && !os.IsNotExist(err) {
					errs[i] = err
				}
			}
		})
	}
	for i := range list {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// afterSaveHook, set only by tests, runs once a set's prior states are
// saved and before anything is applied: the crash test aims its kills by it.
var afterSaveHook func()

// dirOf is a folder whose entries changed, to be synced once.
type dirOf struct {
	root *os.Root
	dir  string
}

// removeOld removes what the workspace holds at the item's path: a file
// or link, or a folder by now emptied of what the set removed in it.
func (c *Call) removeOld(it *setItem, dirs map[dirOf]bool) error {
	root, rel, err := c.Env.Workspace.Confine(it.abs)
	if err != nil {
		return err
	}
	if err := root.Remove(rel); err != nil {
		if it.ch.Before.Type == overlay.Dir {
			return fmt.Errorf("the folder still holds files that were left as they were")
		}
		return err
	}
	dirs[dirOf{root, filepath.Dir(rel)}] = true
	return nil
}

// placeNew makes the item's path hold what the command left there.
func (c *Call) placeNew(it *setItem, dirs map[dirOf]bool, mover *overlay.Mover) error {
	root, rel, err := c.Env.Workspace.Confine(it.abs)
	if err != nil {
		return err
	}
	ch := it.ch
	dir := filepath.Dir(rel)
	dirs[dirOf{root, dir}] = true
	switch ch.After.Type {
	case overlay.Dir:
		if ch.Before.Type != overlay.Dir {
			if err := root.Mkdir(rel, ch.After.Mode.Perm()); err != nil && !os.IsExist(err) {
				return err
			}
		}
		return root.Chmod(rel, ch.After.Mode)
	case overlay.Symlink:
		tmp := tempName(rel)
		if err := root.Symlink(ch.After.Link, tmp); err != nil {
			return err
		}
		if err := root.Rename(tmp, rel); err != nil {
			root.Remove(tmp)
			return err
		}
		return nil
	}
	switch {
	case it.content != nil:
		return writeVia(root, rel, ch.After, func(w io.Writer) error {
			_, err := w.Write(it.content)
			return err
		})
	case it.layer.Copy:
		return writeVia(root, rel, ch.After, func(w io.Writer) error {
			f, err := overlay.OpenUpper(ch.Upper)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		})
	case ch.LinkTo != "":
		// A hard link to a file the command left as it was: link the
		// workspace's own file, which keeps its owner and attributes.
		tmp := tempName(rel)
		if err := root.Link(ch.LinkTo, tmp); err != nil {
			return err
		}
		if err := root.Rename(tmp, rel); err != nil {
			root.Remove(tmp)
			return err
		}
		return nil
	}
	if ch.Before.Type == overlay.None {
		// A new file: the command's own, with its mode already.
		if err := overlay.StripUpper(ch.Upper); err != nil {
			return err
		}
		return mover.Move(ch.Upper, root, rel)
	}
	f, err := overlay.OpenUpper(ch.Upper)
	if err != nil {
		return err
	}
	// The replaced file's owner, group and extended attributes, as any
	// write by Tether keeps them, with the mode the command left.
	err = fsatomic.KeepMetaIn(root, rel, f, ch.After.Mode)
	f.Close()
	if err != nil {
		return err
	}
	return mover.Move(ch.Upper, root, rel)
}

// writeVia writes a file through a synced temporary file beside rel,
// renamed over it, keeping the replaced file's owner and attributes.
func writeVia(root *os.Root, rel string, after overlay.State, fill func(io.Writer) error) (err error) {
	tmp := tempName(rel)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = fsatomic.KeepMetaIn(root, rel, f, after.Mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, rel)
}

// tempName names a temporary entry beside rel, in the form fsatomic's
// writes use (a later Tether sweeps one a crash left).
func tempName(rel string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	dir, base := filepath.Split(rel)
	return filepath.Join(dir, fmt.Sprintf(".%s.tether-%d-%s", base, os.Getpid(), hex.EncodeToString(b[:])))
}

// abandonSet tells the store that none of the set was applied.
func (c *Call) abandonSet(sc SetCheckpointer, paths []string) {
	if sc == nil {
		return
	}
	for _, p := range paths {
		if err := c.Env.Checkpoints.Abandon(c.RequestID, p); err != nil {
			c.Log().Warn("dropping an undo entry for a change that did not happen", "path", p, "err", err)
		}
	}
	if err := sc.Applied(c.RequestID); err != nil {
		c.Log().Warn("recording that a command's changes were given up", "err", err)
	}
}

// appliedSummary tells the model, in a few lines, what of the set is now
// in the workspace: the files by name (ignored outputs by count, under
// their top folders), and what failed.
func (c *Call) appliedSummary(todo []*setItem, failed map[*setItem]error) string {
	var named []string
	outputs := 0
	tops := map[string]bool{}
	for _, it := range todo {
		if failed[it] != nil {
			continue
		}
		if it.ignored && !it.review {
			if it.ch.After.Type != overlay.Dir {
				outputs++
				top := strings.SplitN(filepath.ToSlash(it.name), "/", 2)[0]
				tops[top] = true
			}
			continue
		}
		if v := verbOf(it.ch); v != "" {
			named = append(named, v+" "+it.name)
		}
	}
	var lines []string
	if len(named) > 0 {
		const shown = 12
		list := named
		if len(list) > shown {
			list = append(append([]string(nil), named[:shown]...), fmt.Sprintf("and %d more", len(named)-shown))
		}
		lines = append(lines, "The command's changes were applied, and are in this request's undo checkpoint: "+strings.Join(list, ", ")+".")
	}
	if outputs > 0 {
		var ts []string
		for t := range tops {
			ts = append(ts, t)
		}
		sort.Strings(ts)
		lines = append(lines, fmt.Sprintf("%d ignored output %s (under %s) applied without review; undo removes them with the request.", outputs, nounFor(outputs, "file", "files"), strings.Join(ts, ", ")))
	}
	for _, it := range todo {
		if err := failed[it]; err != nil {
			lines = append(lines, fmt.Sprintf("Not applied: %s (%v); it is as it was.", it.name, err))
		}
	}
	return strings.Join(lines, "\n")
}

// verbOf says in a word what a change does.
func verbOf(ch overlay.Change) string {
	switch {
	case ch.After.Type == overlay.Dir && ch.Before.Type == overlay.None:
		return "" // a folder is told by what it holds
	case ch.After.Type == overlay.Dir && ch.Before.Type == overlay.Dir:
		return "changed the mode of"
	case ch.After.Type == overlay.None:
		return "deleted"
	case ch.Before.Type == overlay.None:
		return "created"
	case ch.SameContent:
		return "changed the mode of"
	}
	return "edited"
}
