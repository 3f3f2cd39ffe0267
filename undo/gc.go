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

// sweep removes what crashes leave behind: the temporary files of
// journals being made, half-written temporary blobs, and blobs no journal
// uses (written just before a crash, or orphaned by an interrupted
// collection), and collects the checkpoints past the number kept. It runs
// when a Store opens, not on every change. It reads no journal unless it
// must: only a process that dies while it writes leaves debris
// (writers.go), and only more journals than are kept need collecting.
// Reading every journal at each start cost a `tether call` in a project
// with a long request behind it tens of milliseconds; a call that needs
// the checkpoints reads them then. Called with the lock held, so no other
// Store is between writing a blob and recording it.
func (s *Store) sweep() error {
	names, err := os.ReadDir(filepath.Join(s.dir, "checkpoints"))
	if err != nil {
		return err
	}
	var errs []error
	journals := 0
	for _, n := range names {
		if strings.HasSuffix(n.Name(), ".journal") {
			journals++
			continue
		}
		errs = append(errs, removeIfExists(filepath.Join(s.dir, "checkpoints", n.Name())))
	}
	dead := s.deadWriters()
	s.writerDied = len(dead) > 0
	if journals <= s.keep && len(dead) == 0 {
		return errors.Join(errs...)
	}
	cps, err := s.loadAll()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if len(cps) > s.keep {
		errs = append(errs, s.collect(cps))
		cps = cps[:s.keep]
	}
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
