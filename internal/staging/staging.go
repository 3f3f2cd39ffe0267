// Package staging keeps the changes made in dryRun mode: each is a diff
// with the exact bytes it would write, kept on disk under the project's
// state folder until the user applies or drops it, so that the editor and
// the command line see the same list and it survives a restart.
package staging

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// Kind is what a change does to its file. The tool framework's changes
// use the same kinds, so a staged change is applied as it was planned.
type Kind string

const (
	Write  Kind = "write"  // create or replace a file's content
	Delete Kind = "delete" // remove a file
	Move   Kind = "move"   // rename From to Path, never over an existing file
)

// Change is one staged file change. Before is what the file held when the
// change was staged; applying is refused if it no longer does.
type Change struct {
	Kind    Kind   `json:"op"` // "op" on disk, as staged by earlier versions
	Path    string `json:"path"`
	From    string `json:"from,omitempty"`
	Existed bool   `json:"existed"`
	Before  []byte `json:"before,omitempty"`
	After   []byte `json:"after,omitempty"`
}

// Entry is one staged tool call.
type Entry struct {
	ID        string    `json:"id"`
	Created   time.Time `json:"created"`
	RequestID string    `json:"requestId,omitempty"`
	Tool      string    `json:"tool"`
	Title     string    `json:"title"`
	Diff      string    `json:"diff"`
	Changes   []Change  `json:"changes"`
}

// Store is the staged changes of one project. Safe for concurrent use
// within a process; entries are separate files written atomically, so two
// processes adding at once cannot corrupt each other.
type Store struct {
	mu  sync.Mutex
	dir string
}

// Open uses dir (created on first Add).
func Open(dir string) *Store { return &Store{dir: dir} }

// Dir is where the entries are kept.
func (s *Store) Dir() string { return s.dir }

// Add saves an entry and returns it with its ID.
func (s *Store) Add(e Entry) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return e, err
	}
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return e, err
	}
	e.Created = time.Now().UTC()
	e.ID = e.Created.Format("20060102-150405") + "-" + hex.EncodeToString(rnd[:])
	data, err := json.Marshal(e)
	if err != nil {
		return e, err
	}
	return e, fsatomic.WriteFile(filepath.Join(s.dir, e.ID+".json"), data, 0o600)
}

// List returns every entry, oldest first.
func (s *Store) List() ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, n := range names {
		if !strings.HasSuffix(n.Name(), ".json") {
			continue
		}
		e, err := s.read(strings.TrimSuffix(n.Name(), ".json"))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Get returns one entry by ID or unique ID prefix.
func (s *Store) Get(id string) (Entry, error) {
	all, err := s.List()
	if err != nil {
		return Entry{}, err
	}
	var found []Entry
	for _, e := range all {
		if e.ID == id {
			return e, nil
		}
		if id != "" && strings.HasPrefix(e.ID, id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return Entry{}, fmt.Errorf("no staged change %q: list them with staged/list (tether staged)", id)
	case 1:
		return found[0], nil
	}
	return Entry{}, fmt.Errorf("%q matches %d staged changes; give more of the id", id, len(found))
}

// Remove drops an entry.
func (s *Store) Remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(filepath.Join(s.dir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no staged change %q", id)
	}
	return err
}

func (s *Store) read(id string) (Entry, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, id+".json"))
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return Entry{}, fmt.Errorf("staged change %s is unreadable: %v", id, err)
	}
	return e, nil
}
