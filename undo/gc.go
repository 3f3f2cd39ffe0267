package undo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// collect keeps the newest s.keep checkpoints of cps (newest first) and
// removes the rest, with the contents that only they used. Its cost follows
// the size of what it removes, not of the store. Called with the lock held.
func (s *Store) collect(cps []*checkpoint) error {
	if len(cps) <= s.keep {
		return nil
	}
	used := map[string]bool{}
	for _, cp := range cps[:s.keep] {
		for _, sha := range cp.blobs() {
			used[sha] = true
		}
	}
	var errs []error
	for _, cp := range cps[s.keep:] {
		// The journal goes first: a crash in between leaves unused blobs,
		// which the next sweep removes, never a journal missing its blobs.
		errs = append(errs, removeIfExists(s.journalPath(cp.id)))
		delete(s.cache, cp.id)
		if s.requests[cp.request] == cp.id {
			delete(s.requests, cp.request)
		}
		for _, sha := range cp.blobs() {
			if !used[sha] {
				errs = append(errs, removeIfExists(s.blobs.path(sha)))
				used[sha] = true // removed once is enough
			}
		}
	}
	return errors.Join(errs...)
}

// sweep removes what crashes leave behind: journals that never got a
// readable first line, half-written temporary blobs, and blobs no journal
// uses (written just before a crash, or orphaned by an interrupted
// collection). It runs when a Store opens, not on every change; the
// contents, whose reading is most of its cost, are swept only after a
// writer died (writers.go). Called with the lock held, so no other Store is
// between writing a blob and recording it.
func (s *Store) sweep() error {
	cps, err := s.loadAll()
	if err != nil {
		return err
	}
	var errs []error
	if len(cps) > s.keep {
		errs = append(errs, s.collect(cps))
		cps = cps[:s.keep]
	}
	names, err := os.ReadDir(filepath.Join(s.dir, "checkpoints"))
	if err != nil {
		return err
	}
	for _, n := range names {
		if id, ok := strings.CutSuffix(n.Name(), ".journal"); !ok || s.cache[id] == nil {
			errs = append(errs, removeIfExists(filepath.Join(s.dir, "checkpoints", n.Name())))
		}
	}
	dead := s.deadWriters()
	if len(dead) == 0 {
		return errors.Join(errs...)
	}
	used := map[string]bool{}
	for _, cp := range cps {
		for _, sha := range cp.blobs() {
			used[sha] = true
		}
	}
	if err := s.blobs.sweep(used); err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, m := range dead {
		errs = append(errs, removeIfExists(m))
	}
	return errors.Join(errs...)
}
