package undo

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Save records path's state (its bytes and mode, or its absence) in
// requestID's checkpoint, durably, before the request changes it. The
// first Save of a path in a request wins: later ones keep the state from
// before the request, and only note that another change is coming, so that
// a crash before its Wrote cannot make undo mistake Tether's own write for
// someone else's. It refuses directories and other non-files, so a change
// it could not undo is never made.
func (s *Store) Save(requestID, path string) error {
	path, err := checkArgs(requestID, path)
	if err != nil {
		return err
	}
	return s.locked(func() error {
		cp, err := s.current(requestID)
		if err != nil {
			return err
		}
		if e := cp.lookup(path); e != nil {
			if e.pending || e.wrote == nil {
				return nil
			}
			return s.append(cp, lazy, record{Kind: kindAgain, Path: path})
		}
		prior, err := s.capture(path)
		if err != nil {
			return err
		}
		rec := record{Kind: kindSave, Path: path, State: &prior}
		return s.addDurable(requestID, cp, rec)
	})
}

// Wrote records what Tether left at path (its content hash and mode, or
// its absence) right after changing it, so that undo can tell a later
// change by someone else from Tether's own.
func (s *Store) Wrote(requestID, path string) error {
	return s.wrote(requestID, path, currentState)
}

// WroteContent is Wrote for a regular file Tether has just written whole
// with data, whose SHA-256 is sum: what it left is recorded from them,
// not read back from the disk and hashed. Where path is no longer a
// regular file of len(data) bytes, it is read back as Wrote reads it.
func (s *Store) WroteContent(requestID, path string, data []byte, sum [sha256.Size]byte) error {
	return s.wrote(requestID, path, func(path string) (fileState, error) {
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
			return currentState(path)
		}
		return fileState{Exists: true, SHA: hex.EncodeToString(sum[:]), Size: fi.Size(), Mode: uint32(fi.Mode() & keptModeBits)}, nil
	})
}

func (s *Store) wrote(requestID, path string, state func(string) (fileState, error)) error {
	path, err := checkArgs(requestID, path)
	if err != nil {
		return err
	}
	return s.locked(func() error {
		cp, err := s.current(requestID)
		if err != nil {
			return err
		}
		if cp.lookup(path) == nil {
			return fmt.Errorf("undo: %s was written under request %q without being saved first (or its checkpoint was undone meanwhile); call Save before changing a file", path, requestID)
		}
		st, err := state(path)
		if err != nil {
			return fmt.Errorf("undo: recording what was written to %s: %w", path, err)
		}
		return s.append(cp, lazy, record{Kind: kindWrote, Path: path, State: &st})
	})
}

// Abandon records that the change Save was called for did not happen, so
// path holds what it held before. A path saved only for that change, and
// still holding its saved state, leaves the checkpoint, so that undo never
// lists a file the request did not change; a checkpoint left with no path
// at all is removed. A path an earlier change of the request wrote keeps
// its entry, and is no longer taken to be in the middle of a change.
func (s *Store) Abandon(requestID, path string) error {
	path, err := checkArgs(requestID, path)
	if err != nil {
		return err
	}
	return s.locked(func() error {
		cp, err := s.current(requestID)
		if err != nil {
			return err
		}
		e := cp.lookup(path)
		if e == nil {
			return nil
		}
		cur, err := currentState(path)
		if err != nil {
			// What is there cannot be told: keep the entry as it is, which
			// makes undo careful with it.
			return nil
		}
		switch {
		case e.wrote == nil && cur.same(e.prior):
			s.orphanedContent()
			if len(cp.entries) == 1 && len(cp.kept) == 0 {
				return s.drop(cp)
			}
			return s.append(cp, lazy, record{Kind: kindDropped, Path: path})
		case e.wrote != nil && e.pending && cur.same(*e.wrote):
			return s.append(cp, lazy, record{Kind: kindWrote, Path: path, State: &cur})
		}
		return nil
	})
}

// drop removes a checkpoint whose only change did not happen. Its saved
// content, used by nothing now, goes with the next sweep.
func (s *Store) drop(cp *checkpoint) error {
	if err := removeIfExists(s.journalPath(cp.id)); err != nil {
		return fmt.Errorf("undo: removing the empty checkpoint %s: %w", cp.id, err)
	}
	delete(s.cache, cp.id)
	if s.requests[cp.request] == cp.id {
		delete(s.requests, cp.request)
	}
	return nil
}

// CheckpointID returns the checkpoint holding the changes requestID made
// through this Store, if it made any. It reads no other checkpoint: a
// `tether call` that changed nothing ends without reading the project's
// journals, which in a project with a long request behind it took most of
// the command's time.
func (s *Store) CheckpointID(requestID string) (id string, ok bool) {
	s.locked(func() error {
		if _, made := s.requests[requestID]; !made {
			return nil
		}
		cp, err := s.latest(requestID)
		if cp != nil && err == nil {
			id, ok = cp.id, true
		}
		return err
	})
	return id, ok
}

func checkArgs(requestID, path string) (string, error) {
	if requestID == "" {
		return "", errors.New("undo: the request id is empty; every change must belong to a request")
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("undo: %q is not an absolute path", path)
	}
	return filepath.Clean(path), nil
}

// capture stores path's content (if any) as a blob and returns its state.
func (s *Store) capture(path string) (fileState, error) {
	f, st, err := openState(path)
	if err != nil {
		if errors.Is(err, errNotRegular) {
			return fileState{}, fmt.Errorf("undo: cannot save %s for undo: it is not a regular file", path)
		}
		return fileState{}, fmt.Errorf("undo: saving %s: %w", path, err)
	}
	if f == nil {
		st.NewDirs = missingDirs(path)
		return st, nil
	}
	defer f.Close()
	s.writing()
	if st.SHA, st.Size, err = s.blobs.put(f); err != nil {
		return fileState{}, fmt.Errorf("undo: saving %s: %w", path, err)
	}
	return st, nil
}

// missingDirs lists the folders above path that do not exist, deepest
// first.
func missingDirs(path string) []string {
	var out []string
	for dir := filepath.Dir(path); ; {
		if _, err := os.Lstat(dir); err == nil {
			return out
		}
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// current returns the checkpoint that requestID's changes go into: its
// newest, unless that was undone or is damaged (such a checkpoint is
// frozen, and new changes start a new one). Called with the lock held.
func (s *Store) current(requestID string) (*checkpoint, error) {
	cp, err := s.latest(requestID)
	if err != nil || cp == nil || cp.undone != nil || cp.damage != nil {
		return nil, err
	}
	return cp, nil
}

// latest returns requestID's newest checkpoint, or nil. Another Store may
// have started it, so a request not seen here is looked up on disk.
func (s *Store) latest(requestID string) (*checkpoint, error) {
	if id, ok := s.requests[requestID]; ok {
		cp, err := s.load(id)
		if err != nil {
			return nil, err
		}
		if cp != nil && cp.undone == nil {
			return cp, nil
		}
	}
	cps, err := s.loadAll()
	if err != nil {
		return nil, err
	}
	for _, cp := range cps {
		if cp.request == requestID {
			s.requests[requestID] = cp.id
			return cp, nil
		}
	}
	delete(s.requests, requestID)
	return nil, nil
}

// durability says whether a record must be on disk before the call that
// adds it returns.
type durability bool

const (
	// durable: the record protects a change about to happen (a save, content
	// undo is about to replace) or ends one (an undo).
	durable durability = true
	// lazy: losing the record to a power cut only makes undo more careful,
	// never loses content: a lost Wrote makes the path's content of unknown
	// origin, which undo keeps before replacing. The record reaches the disk
	// with the journal's next durable one.
	lazy durability = false
)

func (s *Store) append(cp *checkpoint, d durability, recs ...record) error {
	s.writing()
	size, err := appendJournal(s.journalPath(cp.id), cp.goodLen, cp.size, bool(d), recs...)
	if err != nil {
		return fmt.Errorf("undo: writing checkpoint %s: %w", cp.id, err)
	}
	for _, rec := range recs {
		cp.apply(rec)
	}
	cp.goodLen, cp.size = size, size
	return nil
}

// addDurable records recs durably in requestID's checkpoint cp, making the
// checkpoint with them when the request has none yet (cp nil). Called with
// the lock held.
func (s *Store) addDurable(requestID string, cp *checkpoint, recs ...record) error {
	if cp == nil {
		return s.create(requestID, recs...)
	}
	return s.append(cp, durable, recs...)
}

// create starts a new checkpoint for requestID with its first records,
// then drops the checkpoints past the retention limit.
func (s *Store) create(requestID string, first ...record) error {
	s.writing()
	cps, err := s.loadAll()
	if err != nil {
		return err
	}
	created := time.Now()
	// Order must follow creation even when two checkpoints share a clock tick.
	if len(cps) > 0 && !created.After(cps[0].created) {
		created = cps[0].created.Add(time.Nanosecond)
	}
	for attempt := 0; ; attempt++ {
		id := newID(created)
		begin := record{Kind: kindBegin, ID: id, Request: requestID, Time: created}
		size, err := createJournal(s.journalPath(id), append([]record{begin}, first...)...)
		if errors.Is(err, fs.ErrExist) && attempt < 10 {
			continue
		}
		if err != nil {
			return fmt.Errorf("undo: starting a checkpoint: %w", err)
		}
		cp, _ := build(append([]record{begin}, first...))
		cp.goodLen, cp.size = size, size
		s.cache[id] = cp
		s.requests[requestID] = id
		// The checkpoint is recorded; a failed cleanup must not stop the
		// change it protects, and the next checkpoint tries again.
		if err := s.collect(append([]*checkpoint{cp}, cps...)); err != nil {
			s.log.Warn("undo: removing old checkpoints", "err", err)
		}
		return nil
	}
}

// newID makes a checkpoint id people can read and type: the UTC creation
// time and a random suffix.
func newID(t time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
