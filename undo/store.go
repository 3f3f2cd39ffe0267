// Package undo keeps Tether's undo checkpoints: before a request first
// changes a file, the file's bytes and mode (or its absence) are saved, so
// that the whole request can be put back later.
//
// The store must survive what it protects against. Every save is durable
// before the change it precedes, a crash at any instant leaves a store that
// opens with every recorded entry restorable, undo never overwrites work
// that someone else did after Tether, and the store stays small: contents
// are kept once each, only for files a request touched, and only for the
// newest checkpoints.
//
// On disk, under <StateDir>/undo/:
//
//	lock                       taken around every operation, by every process
//	blobs/<ab>/<sha256>        file contents, each stored once
//	checkpoints/<id>.journal   one append-only journal per request
package undo

import (
	"errors"
	"fmt"
	"github.com/tether-dev/tether/protocol"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/project"
)

// DefaultKeep is how many checkpoints are kept when Options.Keep is 0.
const DefaultKeep = 20

// Options tunes a Store.
type Options struct {
	// Keep is how many of the newest checkpoints are kept; older ones and
	// the contents only they used are removed. 0 means DefaultKeep.
	Keep int
	// Dir is where the store lives. Empty means <project.StateDir(root)>/undo.
	Dir string
	// Log receives what goes wrong without failing a call (cleanup of old
	// checkpoints). Nil discards it.
	Log *slog.Logger
	// Roots are the folders undo may write in: every restore, removal and
	// folder it makes happens beneath one of them, opened as an os.Root,
	// so a folder swapped for a link to a place outside cannot carry a
	// restore out. A file outside all of them is left alone and reported.
	// Empty means the project folder alone.
	Roots []string
}

// Store is the undo checkpoint store of one project. It is safe for use by
// many goroutines, and by many Stores on the same folder in any number of
// processes (two editor windows on one project).
type Store struct {
	root  string   // the project's real path, for naming files to people
	roots []string // the real paths of the folders undo writes in
	dir   string
	keep  int
	blobs blobStore
	log   *slog.Logger

	mu     sync.Mutex // orders this Store's goroutines; the file lock orders processes
	lock   *fileLock
	closed bool
	// cache holds journals already read, by checkpoint id.
	cache map[string]*checkpoint
	// requests remembers the checkpoint of each request seen here.
	requests map[string]string
	// marker is this Store's writer marker once it wrote (see writers.go);
	// writerDied says the sweep at Open found a writer that died (see
	// WriterDied).
	writerDied bool
	// markerMu guards it, for the goroutines that save a set's files.
	markerMu sync.Mutex
	marker   string
}

// Checkpoint describes one request's changes: its Summary says what the
// request did ("edited a.go, created b.go, deleted c.txt"), its Files are
// the paths it changed (relative to the project folder when inside it) in
// the order it first changed them. It is the wire form of an undo/list
// entry, so the store speaks the protocol's type.
type Checkpoint = protocol.Checkpoint

// Conflict is a file undo left alone, and why.
type Conflict = protocol.Conflict

// Report says what an undo did: the files now back as they were, the ones
// left alone because they changed after Tether wrote them (their earlier
// content stays in the checkpoint), and the ones restored over content
// Tether had not confirmed writing (kept in the checkpoint, shown by Show).
// It is the wire form of the undo/undo result.
type Report = protocol.UndoResult

// Open opens (creating if needed) the undo store of the project at root.
func Open(root string, opts Options) (*Store, error) {
	if opts.Keep < 0 {
		return nil, fmt.Errorf("undo: Keep is %d; it must be 0 (the default, %d) or more", opts.Keep, DefaultKeep)
	}
	if opts.Keep == 0 {
		opts.Keep = DefaultKeep
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("undo: project folder: %w", err)
	}
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Join(project.StateDir(real), "undo")
	}
	// Saved contents may be secrets: only the user may read them.
	for _, d := range []string{dir, filepath.Join(dir, "blobs"), filepath.Join(dir, "checkpoints")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("undo: %w", err)
		}
	}
	lock, err := openLock(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, fmt.Errorf("undo: %w", err)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	roots := []string{real}
	if len(opts.Roots) > 0 {
		roots = roots[:0]
		for _, r := range opts.Roots {
			rr, err := filepath.EvalSymlinks(r)
			if err != nil {
				return nil, fmt.Errorf("undo: workspace folder: %w", err)
			}
			roots = append(roots, rr)
		}
	}
	s := &Store{
		log:      opts.Log,
		root:     real,
		roots:    roots,
		dir:      dir,
		keep:     opts.Keep,
		blobs:    blobStore{dir: filepath.Join(dir, "blobs")},
		lock:     lock,
		cache:    map[string]*checkpoint{},
		requests: map[string]string{},
	}
	// A failed cleanup must not keep the store from working.
	if err := s.locked(s.sweep); err != nil {
		s.log.Warn("undo: cleaning the checkpoint store", "dir", dir, "err", err)
	}
	return s, nil
}

// WriterDied reports whether, when the Store opened, it found that a
// process had died while writing to it (or left content to sweep), and
// swept what that left here. Only then can such a process have left
// debris elsewhere too, such as a temporary file beside a file it was
// writing; another Store opening the folder later no longer sees it.
func (s *Store) WriterDied() bool { return s.writerDied }

// Dir is the folder the store lives in.
func (s *Store) Dir() string { return s.dir }

// Keep is how many of the newest checkpoints the store keeps.
func (s *Store) Keep() int { return s.keep }

// Close releases the store. Calls after Close fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.doneWriting()
	return s.lock.close()
}

var errClosed = errors.New("undo: the checkpoint store is closed")

// locked runs fn holding both the Store's mutex and the folder's file lock.
func (s *Store) locked(fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	if err := s.lock.lock(); err != nil {
		return fmt.Errorf("undo: locking the checkpoint store: %w", err)
	}
	defer s.lock.unlock()
	return fn()
}

func (s *Store) journalPath(id string) string {
	return filepath.Join(s.dir, "checkpoints", id+".journal")
}

// load returns checkpoint id as its journal says now, or nil when it is
// gone. A journal with damage is still a checkpoint: what it could read,
// and a note of what it could not. Called with the lock held.
func (s *Store) load(id string) (*checkpoint, error) {
	path := s.journalPath(id)
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		delete(s.cache, id)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// Journals only grow, so an unchanged size means nothing was added;
	// a torn tail may have been cut and rewritten to the same size, so a
	// journal that had one is always read again.
	if cp := s.cache[id]; cp != nil && cp.size == fi.Size() && cp.goodLen == cp.size {
		return cp, nil
	}
	sc, err := readJournal(path)
	if errors.Is(err, os.ErrNotExist) {
		delete(s.cache, id)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cp, ok := build(sc.recs)
	noBegin := !ok || cp.id != id
	if noBegin {
		// The first record is lost, but the file is still this
		// checkpoint's, and its other records may hold good saves.
		cp = &checkpoint{id: id, created: idTime(id, fi), byPath: map[string]*entry{}, kept: map[string]fileState{}}
		for _, r := range sc.recs {
			if r.Kind != kindBegin {
				cp.apply(r)
			}
		}
	}
	cp.damage = findDamage(cp, sc, noBegin)
	cp.goodLen, cp.size = sc.goodLen, sc.size
	s.cache[id] = cp
	return cp, nil
}

// idTime dates a checkpoint whose first record is lost: by its journal's
// last change, which is no earlier than its creation, unless that is older
// than the time its id was made at (see newID), which counts then.
func idTime(id string, fi os.FileInfo) time.Time {
	if len(id) >= len("20060102-150405") {
		if t, err := time.Parse("20060102-150405", id[:len("20060102-150405")]); err == nil && t.After(fi.ModTime()) {
			return t
		}
	}
	return fi.ModTime()
}

// loadAll returns every readable checkpoint, newest first. Called with the
// lock held.
func (s *Store) loadAll() ([]*checkpoint, error) {
	names, err := os.ReadDir(filepath.Join(s.dir, "checkpoints"))
	if err != nil {
		return nil, err
	}
	var cps []*checkpoint
	for _, n := range names {
		id, ok := strings.CutSuffix(n.Name(), ".journal")
		if !ok {
			continue
		}
		cp, err := s.load(id)
		if err != nil {
			return nil, err
		}
		if cp != nil {
			cps = append(cps, cp)
		}
	}
	sort.Slice(cps, func(i, j int) bool {
		if !cps[i].created.Equal(cps[j].created) {
			return cps[i].created.After(cps[j].created)
		}
		return cps[i].id > cps[j].id
	})
	return cps, nil
}

// display names a path for people: relative to the project when inside it.
func (s *Store) display(path string) string {
	if rel, err := filepath.Rel(s.root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return path
}
