package undo

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// restoreOrder puts removals first, the deepest paths first (what a
// request made in a folder it made goes before the folder), so that every
// path a request created is free again before anything is written back;
// then folders that were there, the shallowest first; then files and links.
func restoreOrder(entries []*entry) []*entry {
	out := append([]*entry(nil), entries...)
	rank := func(e *entry) int {
		switch {
		case !e.prior.Exists:
			return 0
		case e.prior.isDir():
			return 1
		}
		return 2
	}
	depth := func(e *entry) int { return strings.Count(e.path, string(filepath.Separator)) }
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		switch ri {
		case 0:
			return depth(out[i]) > depth(out[j])
		case 1:
			return depth(out[i]) < depth(out[j])
		}
		return false
	})
	return out
}

type action int

const (
	actNone     action = iota // the file is already as it was before
	actRestore                // put back what was there before
	actReplace                // put it back, after keeping content of unknown origin
	actConflict               // changed by someone else: leave it alone
)

type step struct {
	act    action
	reason string // for a conflict
	cur    fileState
	info   fs.FileInfo // cur's identity, to notice a change before acting
}

// plan decides what undo does with one path, from what is there now.
func (s *Store) plan(e *entry) step {
	cur, info, err := observe(e.path)
	switch {
	case errors.Is(err, errNotRegular):
		return step{act: actConflict, reason: "left alone: it is no longer a regular file"}
	case err != nil:
		return step{act: actConflict, reason: "left alone: it could not be read (" + err.Error() + ")"}
	case cur.same(e.prior):
		return step{act: actNone, cur: cur, info: info}
	case cur.Exists && cur.Type != "" && !e.typed():
		// A file tool's entry: only a regular file there can be its own.
		return step{act: actConflict, reason: "left alone: it is no longer a regular file"}
	case e.confirmed(cur):
		return step{act: actRestore, cur: cur, info: info}
	case e.unconfirmed():
		// Tether died (or failed) between saving the path and recording
		// its write, so whose content this is cannot be known. The request
		// is still put back, but nothing is lost: the content is kept.
		if !cur.Exists || cur.isDir() {
			// Nothing to keep: a folder a change made goes only while
			// empty, else putting back fails and says so.
			return step{act: actRestore, cur: cur, info: info}
		}
		return step{act: actReplace, cur: cur, info: info}
	}
	return step{act: actConflict, reason: conflictReason(*e.wrote, cur), cur: cur}
}

func conflictReason(wrote, cur fileState) string {
	switch {
	case !cur.Exists:
		return "left alone: it was deleted after Tether wrote it"
	case !wrote.Exists:
		return "left alone: a file appeared there after Tether removed it"
	case wrote.SHA == cur.SHA && wrote.Size == cur.Size:
		return "left alone: its permissions changed after Tether wrote it"
	}
	return "left alone: it was changed after Tether wrote it"
}

// keepCurrent saves what path holds into the checkpoint before undo
// replaces it.
func (s *Store) keepCurrent(cp *checkpoint, path string) error {
	st, err := s.captureAny(path)
	if err != nil {
		return err
	}
	return s.append(cp, durable, record{Kind: kindKept, Path: path, State: &st})
}
