// Package memory keeps a project's memories: durable facts an agent saves
// for later requests, one Markdown file each with a YAML frontmatter, in
// the project's XDG data folder (out of the repository, and out of the
// instruction files other agents read):
//
//	<dir>/<name>.md           a memory
//	<dir>/archive/<name>.md   an archived one: out of listings and search, never deleted
//
// The package reads, parses, merges, renders and searches memories. It does
// not write them: every write is a change the tool framework authorises,
// checkpoints for undo and writes atomically, like any file change.
//
// A file a person edited into an unreadable state is reported as broken,
// with the parse error and its line, and never rewritten.
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/internal/workspace"
)

// Ext is a memory file's extension.
const Ext = ".md"

// ArchiveName is the folder, inside the memory folder, of archived memories.
const ArchiveName = "archive"

// Dir is the memory folder of the project rooted at root:
// $XDG_DATA_HOME/tether/projects/<key>/memory.
func Dir(root string) string { return filepath.Join(project.DataDir(root), "memory") }

// Memory is one memory file as read.
type Memory struct {
	Name string
	Path string
	Page
	// Raw is the file as stored.
	Raw     []byte
	ModTime time.Time
	// Err is set when the file cannot be read as a memory (a broken
	// frontmatter, a file name that is not a memory name); Page is then
	// empty apart from Body, which holds the whole file.
	Err error

	// lower holds the lower-cased fields search looks in, grams their
	// three-letter pieces.
	lower struct{ name, desc, keywords, body string }
	grams grams
}

// Updated is when the memory last changed: its stamp, else its file's time.
func (m *Memory) Updated() time.Time {
	if !m.Meta.Updated.IsZero() {
		return m.Meta.Updated
	}
	return m.ModTime
}

// Store is a project's memory folder. It caches what it has read, so a
// search reads only the files that changed since the last one: on Linux it
// learns which from inotify, elsewhere from each file's size and time.
// Safe for concurrent use.
type Store struct {
	dir string

	realOnce sync.Once
	real     string

	mu    sync.Mutex
	cache map[string]*cached // by path
	w     *watcher
	// complete says cache holds every live memory and w has queued every
	// change since, so a listing need only apply those changes.
	complete bool
	// noWatch says the folder cannot be watched here: every listing
	// checks every file.
	noWatch bool
	closed  bool
	// root is the folder, opened on the first write: every write to a
	// memory goes through it, so a link swapped into the folder's place
	// cannot carry the write elsewhere.
	root *os.Root
}

type cached struct {
	size   int64
	mod    time.Time
	readAt time.Time
	m      *Memory
}

// racyWindow is how close to its reading a file's time may be before the
// cache no longer trusts size and time to show a change: a file system
// with coarse times can change a file twice within one tick.
const racyWindow = 2 * time.Second

// Open uses dir as a memory folder; nothing is read or created until needed.
func Open(dir string) *Store {
	return &Store{dir: filepath.Clean(dir), cache: map[string]*cached{}}
}

// Close releases the folder's watch. The store still works after it, as
// a store that cannot watch.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.dropWatch()
	if s.root != nil {
		err := s.root.Close()
		s.root = nil
		return err
	}
	return nil
}

// Confine returns the memory folder, opened (and made, when missing), and
// real's path inside it, for a write that must stay in the folder at the
// moment of the system call; real must be a file Holds.
func (s *Store) Confine(real string) (*os.Root, string, error) {
	if !s.Holds(real) {
		return nil, "", &fs.PathError{Op: "confine", Path: real, Err: errors.New("not a memory file of this project")}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", &fs.PathError{Op: "confine", Path: real, Err: fs.ErrClosed}
	}
	if s.root == nil {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return nil, "", err
		}
		root, err := os.OpenRoot(s.realDir())
		if err != nil {
			return nil, "", err
		}
		s.root = root
	}
	rel, err := filepath.Rel(s.realDir(), real)
	if err != nil {
		return nil, "", err
	}
	return s.root, rel, nil
}

func (s *Store) dropWatch() {
	if s.w != nil {
		s.w.close()
		s.w = nil
	}
	s.complete = false
}

// Dir is the memory folder.
func (s *Store) Dir() string { return s.dir }

// ArchiveDir is the folder of archived memories.
func (s *Store) ArchiveDir() string { return filepath.Join(s.dir, ArchiveName) }

// Path is the file of the memory name, which must be valid (CheckName).
func (s *Store) Path(name string) string { return filepath.Join(s.dir, name+Ext) }

// realDir is the folder's real path (symlinks resolved, as far as it exists).
func (s *Store) realDir() string {
	s.realOnce.Do(func() {
		s.real = s.dir
		if r, err := workspace.Real(s.dir); err == nil {
			s.real = r
		}
	})
	return s.real
}

// Holds reports whether real (a path with its symlinks resolved) is a
// memory file of this store, live or archived: a file directly in the
// folder or in its archive folder.
func (s *Store) Holds(real string) bool {
	if s == nil || real == "" {
		return false
	}
	dir := filepath.Dir(real)
	root := s.realDir()
	return (dir == root || dir == filepath.Join(root, ArchiveName)) && strings.HasSuffix(real, Ext)
}

// Display names a memory file for people: memory/<name>.md or
// memory/archive/<name>.md.
func (s *Store) Display(real string) string {
	rel, err := filepath.Rel(s.realDir(), real)
	if err != nil {
		return real
	}
	return "memory/" + filepath.ToSlash(rel)
}

// Load reads the memory name (a valid name). A missing memory is an error
// that matches fs.ErrNotExist; a broken one is returned with Err set.
func (s *Store) Load(name string) (*Memory, error) {
	path := s.Path(name)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load(name, path, fi)
}

// load reads a file, or takes it from the cache when its size and time
// have not changed. Called with s.mu held.
func (s *Store) load(name, path string, fi fs.FileInfo) (*Memory, error) {
	c := s.cache[path]
	if c != nil && c.size == fi.Size() && c.mod.Equal(fi.ModTime()) && c.readAt.Sub(c.mod) >= racyWindow {
		return c.m, nil
	}
	now := time.Now()
	m := &Memory{Name: name, Path: path, ModTime: fi.ModTime()}
	switch {
	case !fi.Mode().IsRegular():
		m.Err = errors.New("it is not a regular file (a link or a folder); memories are plain files")
	default:
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		m.Raw = data
		if _, nerr := CheckName(name); nerr != nil {
			m.Err = fmt.Errorf("the file name is not a memory name (%s); rename it", NameRule)
			m.Body = string(data)
		} else if p, perr := Parse(data); perr != nil {
			m.Err = perr
			m.Body, m.BodyLine = string(data), 1
		} else {
			m.Page = p
		}
	}
	m.index()
	s.cache[path] = &cached{size: fi.Size(), mod: fi.ModTime(), readAt: now, m: m}
	return m, nil
}

func (m *Memory) index() {
	m.lower.name = strings.ToLower(m.Name)
	m.lower.desc = strings.ToLower(m.Meta.Description)
	m.lower.keywords = strings.ToLower(strings.Join(m.Meta.Keywords, "\n"))
	m.lower.body = strings.ToLower(m.Body)
	m.grams.add(m.lower.name)
	m.grams.add(spacedName(m.lower.name))
	m.grams.add(m.lower.desc)
	m.grams.add(m.lower.keywords)
	m.grams.add(m.lower.body)
}

// listed reports whether a file name in the folder is a memory's.
func listed(fname string) bool {
	return strings.HasSuffix(fname, Ext) && !strings.HasPrefix(fname, ".")
}

// List reads every live memory (not the archived ones), newest first. A
// missing folder is an empty list.
func (s *Store) List() ([]*Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.complete {
		names, all, err := s.w.changes()
		if err == nil && !all {
			if err := s.refresh(names); err != nil {
				return nil, err
			}
			return s.sorted(), nil
		}
		s.dropWatch()
	}
	return s.scan()
}

// refresh re-reads the files the watch says changed. Called with s.mu held.
func (s *Store) refresh(names []string) error {
	done := map[string]bool{}
	for _, fname := range names {
		if done[fname] || !listed(fname) {
			continue
		}
		done[fname] = true
		path := filepath.Join(s.dir, fname)
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			delete(s.cache, path)
			continue
		}
		if err != nil {
			return err
		}
		if _, err := s.load(strings.TrimSuffix(fname, Ext), path, fi); errors.Is(err, fs.ErrNotExist) {
			delete(s.cache, path)
		} else if err != nil {
			return err
		}
	}
	return nil
}

// scan reads the whole folder, watching it first (where it can) so that
// every change from then on is queued for the next listing. Called with
// s.mu held.
func (s *Store) scan() ([]*Memory, error) {
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		clear(s.cache)
		return nil, nil
	}
	if s.w == nil && !s.noWatch && !s.closed {
		w, err := newWatcher(s.dir)
		if err != nil {
			s.noWatch = true // unsupported, or out of watches: check every file
		}
		s.w = w
	}
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		clear(s.cache)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	live := make(map[string]bool, len(entries))
	for _, e := range entries {
		fname := e.Name()
		if !listed(fname) {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		path := filepath.Join(s.dir, fname)
		if _, err := s.load(strings.TrimSuffix(fname, Ext), path, fi); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		live[path] = true
	}
	for p := range s.cache {
		if !live[p] {
			delete(s.cache, p)
		}
	}
	s.complete = s.w != nil
	return s.sorted(), nil
}

// sorted lists the cached memories, newest first. Called with s.mu held.
func (s *Store) sorted() []*Memory {
	out := make([]*Memory, 0, len(s.cache))
	for _, c := range s.cache {
		out = append(out, c.m)
	}
	SortNewest(out)
	return out
}

// SortNewest orders memories by when they were updated, newest first,
// then by name.
func SortNewest(ms []*Memory) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i].Updated(), ms[j].Updated()
		if !a.Equal(b) {
			return a.After(b)
		}
		return ms[i].Name < ms[j].Name
	})
}

// ArchivePath is where memory name goes when archived: archive/<name>.md,
// or, when an earlier memory of that name was archived already,
// archive/<name>.<time>.md, so that no archived memory is ever replaced.
func (s *Store) ArchivePath(name string, now time.Time) string {
	p := filepath.Join(s.ArchiveDir(), name+Ext)
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return p
	}
	stamp := now.UTC().Format("20060102-150405")
	for i := 0; i < 100; i++ {
		suffix := stamp
		if i > 0 {
			suffix = fmt.Sprintf("%s-%d", stamp, i)
		}
		p = filepath.Join(s.ArchiveDir(), name+"."+suffix+Ext)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return p // the move never replaces a file: a taken name fails it
}
