package undo

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// Undo puts back every file of checkpoint id ("" means the newest one not
// yet undone) as it was before its request: edited files get their bytes
// and mode back, created ones are removed, deleted ones return, moves are
// reversed. A file someone changed after Tether wrote it is left alone and
// reported; its earlier content stays in the checkpoint. The checkpoint is
// then marked undone, never deleted. Each file is restored atomically.
func (s *Store) Undo(id string) (Report, error) {
	var rep Report
	err := s.locked(func() error {
		cp, err := s.pick(id)
		if err != nil {
			return err
		}
		if cp.undone != nil {
			return fmt.Errorf("undo: checkpoint %s was already undone on %s; nothing was changed (Show %s tells what it could not restore)",
				cp.id, cp.undone.Time.Local().Format(time.DateTime), cp.id)
		}
		done, err := s.undo(cp)
		if err != nil {
			return err
		}
		rep.ID = cp.id
		for _, p := range done.Restored {
			rep.Restored = append(rep.Restored, s.display(p))
		}
		for _, c := range done.Conflicts {
			rep.Conflicts = append(rep.Conflicts, Conflict{Path: s.display(c.Path), Reason: c.Reason})
		}
		for _, p := range done.Replaced {
			rep.Replaced = append(rep.Replaced, s.display(p))
		}
		rep.Damaged = done.Damaged
		return nil
	})
	return rep, err
}

// undo restores cp's files and marks it undone. Called with the lock held.
//
// A request can touch hundreds of files, and a synced write costs
// milliseconds, so the restored contents are first written and synced to
// temporary files side by side, in parallel; then each is checked once more
// and renamed into place, and each folder is synced once.
func (s *Store) undo(cp *checkpoint) (record, error) {
	done := record{Kind: kindUndone}
	conflict := func(e *entry, reason string) {
		done.Conflicts = append(done.Conflicts, Conflict{Path: e.path, Reason: reason})
	}
	if cp.damage != nil {
		// Said first, and kept with the undo: what could not be read
		// cannot be put back, and the report must not look complete.
		done.Damaged = s.damageNote(cp)
		for _, p := range cp.damage.saves {
			done.Conflicts = append(done.Conflicts, Conflict{Path: p, Reason: "not put back: its entry in the checkpoint is damaged, so its earlier content is not known"})
		}
		if len(cp.damage.saves) == 0 {
			// Damage that names no file is still listed among what was not
			// put back, so that no client shows the undo as clean.
			done.Conflicts = append(done.Conflicts, Conflict{Path: "checkpoint " + cp.id, Reason: done.Damaged})
		}
	}
	entries := restoreOrder(cp.entries)
	rs := s.openRoots()
	defer rs.close()
	type place struct {
		rt  *os.Root
		rel string
	}
	places := make([]place, len(entries))
	steps := make([]step, len(entries))
	parallel(len(entries), func(i int) {
		rt, rel, err := rs.find(entries[i].path)
		if err != nil {
			steps[i] = step{act: actConflict, reason: "left alone: " + err.Error()}
			return
		}
		places[i] = place{rt, rel}
		steps[i] = s.plan(entries[i])
	})
	for i, e := range entries {
		if steps[i].act == actReplace {
			if err := s.keepCurrent(cp, e.path); err != nil {
				steps[i] = step{act: actConflict, reason: "left alone: its current content could not be saved first (" + err.Error() + ")"}
			}
		}
	}
	type dirKey struct {
		rt  *os.Root
		dir string
	}
	dirs := map[dirKey]bool{}
	staged := make([]string, len(entries))
	stageErr := make([]error, len(entries))
	// restore makes entries[i] hold its prior state, its content already
	// staged when it has some.
	restore := func(i int) {
		e, st, pl := entries[i], steps[i], places[i]
		switch {
		case st.act == actConflict:
			conflict(e, st.reason)
			return
		case stageErr[i] != nil:
			conflict(e, "could not be put back: "+stageErr[i].Error())
			return
		case st.act != actNone:
			// The user may have saved the file while undo was preparing.
			if !unchangedSince(e.path, st.info) {
				discard(pl.rt, staged[i])
				conflict(e, "left alone: it changed while undo was running")
				return
			}
			if err := s.put(pl.rt, pl.rel, e, staged[i]); err != nil {
				discard(pl.rt, staged[i])
				conflict(e, "could not be put back: "+err.Error())
				return
			}
			dirs[dirKey{pl.rt, filepath.Dir(pl.rel)}] = true
			if st.act == actReplace {
				done.Replaced = append(done.Replaced, e.path)
			}
		}
		done.Restored = append(done.Restored, e.path)
	}
	// Removals and folders first, one by one in order (see restoreOrder),
	// so that every file has its folder back before its content is staged.
	files := len(entries)
	for i, e := range entries {
		if e.prior.Exists && !e.prior.isDir() {
			files = i
			break
		}
		restore(i)
	}
	parallel(len(entries)-files, func(j int) {
		i := files + j
		if act := steps[i].act; act == actRestore || act == actReplace {
			staged[i], stageErr[i] = s.stage(places[i].rt, places[i].rel, entries[i])
		}
	})
	for i := files; i < len(entries); i++ {
		restore(i)
	}
	var syncErrs []error
	dirList := slices.Collect(maps.Keys(dirs))
	errs := make([]error, len(dirList))
	parallel(len(dirList), func(i int) { errs[i] = fsatomic.SyncDirIn(dirList[i].rt, dirList[i].dir) })
	for i, err := range errs {
		// A folder the request had created is gone with its last file;
		// its parent was synced when it was removed.
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			syncErrs = append(syncErrs, fmt.Errorf("%s: %w", filepath.Join(dirList[i].rt.Name(), dirList[i].dir), err))
		}
	}
	if err := errors.Join(syncErrs...); err != nil {
		// The files are back but may not survive a power cut: say so, and
		// leave the checkpoint open so that undo can be run again.
		return done, fmt.Errorf("undo: files were restored but not made durable: %w", err)
	}
	done.Time = time.Now()
	return done, s.append(cp, durable, done)
}

// pick finds checkpoint id, a unique prefix of one, or with "" the newest
// not undone. Called with the lock held.
func (s *Store) pick(id string) (*checkpoint, error) {
	cps, err := s.loadAll()
	if err != nil {
		return nil, err
	}
	if id == "" {
		for _, cp := range cps {
			if cp.undone == nil {
				return cp, nil
			}
		}
		return nil, errors.New("undo: nothing to undo: every kept checkpoint is already undone, or no request changed a file yet")
	}
	var found []*checkpoint
	for _, cp := range cps {
		if cp.id == id {
			return cp, nil
		}
		if strings.HasPrefix(cp.id, id) {
			found = append(found, cp)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("undo: no checkpoint %q; list the checkpoints to see their ids (the newest %d are kept)", id, s.keep)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("undo: %q matches %d checkpoints; give more of the id", id, len(found))
}
