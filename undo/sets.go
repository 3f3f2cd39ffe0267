package undo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A command changes many paths at once, and not only regular files. Its
// changes are saved as a set: every path's prior state in one durable
// append (one flush, not one per path), then applied, then recorded as
// written in one append. Symbolic links and folders are states too.

// SaveSet records the prior state of each of paths in requestID's
// checkpoint, as Save does for one file, and that a set of changes to them
// is about to be applied (what names the set, for a person). It makes one
// flush of the journal for all of them. A path may hold a regular file, a
// symbolic link, a folder or nothing; anything else is refused, and then
// nothing is recorded. Call Applied once the set has been applied (or
// given up): a set without it is reported as interrupted.
func (s *Store) SaveSet(requestID string, paths []string, what string) error {
	clean := make([]string, len(paths))
	for i, p := range paths {
		c, err := checkArgs(requestID, p)
		if err != nil {
			return err
		}
		clean[i] = c
	}
	return s.locked(func() error {
		cp, err := s.current(requestID)
		if err != nil {
			return err
		}
		var recs []record
		var fresh []string
		for _, p := range clean {
			switch e := cp.lookup(p); {
			case e == nil:
				fresh = append(fresh, p)
			case !e.pending && e.wrote != nil:
				recs = append(recs, record{Kind: kindAgain, Path: p})
			}
		}
		states := make([]fileState, len(fresh))
		errs := make([]error, len(fresh))
		parallel(len(fresh), func(i int) { states[i], errs[i] = s.captureAny(fresh[i]) })
		seen := map[string]bool{}
		for i, p := range fresh {
			if errs[i] != nil {
				return errs[i]
			}
			if seen[p] {
				continue
			}
			seen[p] = true
			st := states[i]
			recs = append(recs, record{Kind: kindSave, Path: p, State: &st, Set: true})
		}
		recs = append(recs, record{Kind: kindApplying, Reason: what, Count: len(clean)})
		return s.addDurable(requestID, cp, recs...)
	})
}

// WroteSet records what Tether left at each of paths after applying a
// set, as Wrote does for one path, in one append.
func (s *Store) WroteSet(requestID string, paths []string) error {
	return s.locked(func() error {
		cp, err := s.current(requestID)
		if err != nil {
			return err
		}
		var todo []string
		for _, p := range paths {
			if cp.lookup(filepath.Clean(p)) != nil {
				todo = append(todo, filepath.Clean(p))
			}
		}
		states := make([]fileState, len(todo))
		errs := make([]error, len(todo))
		parallel(len(todo), func(i int) { states[i], errs[i] = currentState(todo[i]) })
		var recs []record
		for i, p := range todo {
			if errs[i] != nil {
				// What is there cannot be told: without a record undo
				// treats it as content of unknown origin and keeps it.
				s.log.Warn("undo: recording what was written", "path", p, "err", errs[i])
				continue
			}
			st := states[i]
			recs = append(recs, record{Kind: kindWrote, Path: p, State: &st})
		}
		if len(recs) == 0 {
			return nil
		}
		return s.append(cp, lazy, recs...)
	})
}

// Applied records that the set SaveSet announced was applied as far as it
// went: it is no longer reported as interrupted.
func (s *Store) Applied(requestID string) error {
	return s.locked(func() error {
		cp, err := s.current(requestID)
		if err != nil || cp == nil || cp.applying == nil {
			return err
		}
		return s.append(cp, lazy, record{Kind: kindApplied})
	})
}

// SetAside keeps content (read from r, with mode) in requestID's checkpoint
// as a command's version of path that was not applied, and why, so that
// it can be found and recovered there (Show lists it).
func (s *Store) SetAside(requestID, path string, r io.Reader, mode fs.FileMode, why string) error {
	path, err := checkArgs(requestID, path)
	if err != nil {
		return err
	}
	return s.locked(func() error {
		cp, err := s.current(requestID)
		if err != nil {
			return err
		}
		st := fileState{Exists: true, Mode: uint32(mode & keptModeBits)}
		s.writing()
		if st.SHA, st.Size, err = s.blobs.put(r); err != nil {
			return fmt.Errorf("undo: keeping the command's version of %s: %w", path, err)
		}
		rec := record{Kind: kindAside, Path: path, State: &st, Reason: why}
		return s.addDurable(requestID, cp, rec)
	})
}

// captureAny is capture for a path that may also hold a symbolic link or
// a folder (saved by its target or mode; the folder's content is saved
// path by path). A set names the folders it makes as paths of their own,
// so an absent path records no missing folders above it.
func (s *Store) captureAny(path string) (fileState, error) {
	fi, err := os.Lstat(path)
	if absent(err) {
		return fileState{}, nil
	}
	if err != nil {
		return fileState{}, fmt.Errorf("undo: saving %s: %w", path, err)
	}
	if fi.Mode().IsRegular() {
		return s.capture(path)
	}
	st, _, err := observe(path)
	if errors.Is(err, errNotRegular) {
		return fileState{}, fmt.Errorf("undo: cannot save %s for undo: it is %s", path, describeType(fi.Mode()))
	}
	if err != nil {
		return fileState{}, fmt.Errorf("undo: saving %s: %w", path, err)
	}
	return st, nil
}
