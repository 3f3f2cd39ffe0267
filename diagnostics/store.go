// Package diagnostics keeps the editor's diagnostics (errors, warnings from
// language servers and linters) as the client publishes them, and renders
// them for the model, and which files have unsaved changes in the editor.
// Only the editor knows these; the daemon just keeps the latest full set.
package diagnostics

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	lsp "go.lsp.dev/protocol"
)

// Limits that keep a flood of publishes from growing the store without end.
const (
	MaxFiles       = 5000 // files tracked; the least recently published go first
	MaxPerFile     = 500  // diagnostics kept per file, most severe first
	MaxMessageSize = 2000 // bytes of one message kept
)

// Store holds the latest diagnostics per file. Safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	files   map[string]*entry
	seq     uint64
	last    time.Time
	changed chan struct{} // closed and replaced on every publish
	// kinds are the file extensions diagnostics have ever come for: a
	// sign that something in the editor checks files of that kind, and
	// what has been seen of it.
	kinds map[string]*kind
}

// kind is what the store has seen of the checks of one kind of file.
type kind struct {
	// checksClosed: diagnostics came for a file of the kind while it was
	// not open in the editor, so something checks such files open or not
	// (gopls does, a linter of open files does not).
	checksClosed bool
	// latencies are the last few times from a write to the publish that
	// changed the written file's diagnostics: how long the kind's language
	// server takes, as seen here.
	latencies []time.Duration
}

// keptLatencies is how many latencies are kept per kind of file: enough
// to remember a slow check, few enough to follow a server that got faster.
const keptLatencies = 8

type entry struct {
	diags []lsp.Diagnostic
	seq   uint64
}

// NewStore makes an empty store.
func NewStore() *Store {
	return &Store{files: map[string]*entry{}, changed: make(chan struct{}), kinds: map[string]*kind{}}
}

// Publish replaces the diagnostics of one file (an absolute path). An empty
// list clears the file.
func (s *Store) Publish(path string, diags []lsp.Diagnostic) {
	diags = bound(diags)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.last = time.Now()
	s.files[path] = &entry{diags: diags, seq: s.seq}
	if ext := filepath.Ext(path); s.kinds[ext] == nil && len(s.kinds) < maxExts {
		s.kinds[ext] = &kind{}
	}
	if len(s.files) > MaxFiles {
		s.evictOldest()
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// evictOldest drops the file published longest ago. Called with mu held.
func (s *Store) evictOldest() {
	var oldest string
	var seq uint64
	for p, e := range s.files {
		if oldest == "" || e.seq < seq {
			oldest, seq = p, e.seq
		}
	}
	delete(s.files, oldest)
}

// bound copies diags, most severe first, within the per-file limits.
func bound(diags []lsp.Diagnostic) []lsp.Diagnostic {
	out := append([]lsp.Diagnostic(nil), diags...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Severity) < rank(out[j].Severity) })
	if len(out) > MaxPerFile {
		out = out[:MaxPerFile]
	}
	for i := range out {
		if len(out[i].Message) > MaxMessageSize {
			out[i].Message = out[i].Message[:MaxMessageSize] + "…"
		}
	}
	return out
}

// rank orders severities: errors first; an omitted severity counts as an error.
func rank(s lsp.DiagnosticSeverity) int {
	if s == 0 {
		return int(lsp.DiagnosticSeverityError)
	}
	return int(s)
}

// maxExts bounds the set of extensions a flood of odd names could grow.
const maxExts = 1000

// Checked reports whether the editor has ever published diagnostics for a
// file of path's kind (its extension). Nothing checks a kind that never
// had any, so waiting for fresh diagnostics of such a file is pointless.
func (s *Store) Checked(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kinds[filepath.Ext(path)] != nil
}

// NoteClosedPublish records that path's diagnostics, published, came
// while the file was not open in the editor.
func (s *Store) NoteClosedPublish(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := s.kinds[filepath.Ext(path)]; k != nil {
		k.checksClosed = true
	}
}

// ChecksClosedFiles reports whether diagnostics have come for a file of
// path's kind while it was not open: a change to such a file, open or
// not, may be reported on.
func (s *Store) ChecksClosedFiles(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kinds[filepath.Ext(path)]
	return k != nil && k.checksClosed
}

// NoteLatency records that the diagnostics of path, published, changed d
// after it was written.
func (s *Store) NoteLatency(path string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kinds[filepath.Ext(path)]
	if k == nil {
		return
	}
	if len(k.latencies) == keptLatencies {
		k.latencies = k.latencies[1:]
	}
	k.latencies = append(k.latencies, d)
}

// SlowestLatency is the slowest of the recent latencies noted for files
// of path's kind, and whether there was any.
func (s *Store) SlowestLatency(path string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kinds[filepath.Ext(path)]
	if k == nil || len(k.latencies) == 0 {
		return 0, false
	}
	return slices.Max(k.latencies), true
}

// File returns path's diagnostics and the sequence number of their publish
// (0 if the file was never published).
func (s *Store) File(path string) ([]lsp.Diagnostic, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.files[path]; e != nil {
		return e.diags, e.seq
	}
	return nil, 0
}

// Seq is the sequence number of the latest publish of any file.
func (s *Store) Seq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// LastPublish is when the latest publish arrived (zero if none).
func (s *Store) LastPublish() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// All returns every file's diagnostics.
func (s *Store) All() map[string][]lsp.Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]lsp.Diagnostic, len(s.files))
	for p, e := range s.files {
		if len(e.diags) > 0 {
			out[p] = e.diags
		}
	}
	return out
}

// WaitFresh waits until every path has been published after the sequence
// number after, or until ctx ends. It returns the paths that did get a
// fresh publish, with their diagnostics.
func (s *Store) WaitFresh(ctx context.Context, after uint64, paths []string) map[string][]lsp.Diagnostic {
	for {
		s.mu.Lock()
		fresh := map[string][]lsp.Diagnostic{}
		for _, p := range paths {
			if e := s.files[p]; e != nil && e.seq > after {
				fresh[p] = e.diags
			}
		}
		changed := s.changed
		s.mu.Unlock()
		if len(fresh) == len(paths) {
			return fresh
		}
		select {
		case <-ctx.Done():
			return fresh
		case <-changed:
		}
	}
}
