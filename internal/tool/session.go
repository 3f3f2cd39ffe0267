package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/protocol"
)

// Session holds one agent's memory of the files it has seen. Each agent (a
// chat, a sub-agent) gets its own, so one agent's reads never license
// another's edits.
type Session struct {
	mu    sync.Mutex
	reads map[string]*ReadRecord

	// The last call and how many times in a row it came.
	lastCall string
	repeats  int

	plan []protocol.TodoItem

	// parent is the session of the agent that started this one (a
	// sub-agent's); its calls show in the parent's plan.
	parent *Session
	// planSend keeps the plan's notifications in the order of its changes.
	planSend sync.Mutex
}

// SetPlan replaces the session's todo plan. A step that keeps its text
// keeps the activity attached to it so far.
func (s *Session) SetPlan(items []protocol.TodoItem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plan = carryActivity(s.plan, items)
}

// Plan returns the session's todo plan, with the activity of each step.
func (s *Session) Plan() []protocol.TodoItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyPlan(s.plan)
}

// NewSession makes an empty session.
func NewSession() *Session {
	return &Session{reads: map[string]*ReadRecord{}}
}

// NewChildSession makes the empty session of a sub-agent started by an
// agent with session parent: it remembers nothing the parent read, and its
// calls show in the parent's plan.
func NewChildSession(parent *Session) *Session {
	s := NewSession()
	s.parent = parent
	return s
}

// Depth is how many agents stand above this session's: 0 for the main
// agent, 1 for a sub-agent.
func (s *Session) Depth() int {
	d := 0
	for p := s.parent; p != nil; p = p.parent {
		d++
	}
	return d
}

// root is the session of the agent at the top, which holds the plan the
// user sees.
func (s *Session) root() *Session {
	for s.parent != nil {
		s = s.parent
	}
	return s
}

// ReadPaths lists the real paths of the files the session knows, sorted:
// those it read, and those it wrote whole.
func (s *Session) ReadPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.reads))
	for p := range s.reads {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ReadRecord is what a session knows about one file, keyed by real path.
type ReadRecord struct {
	ModTime time.Time
	Size    int64
	// Lines is every line range the agent has been shown.
	Lines textfile.LineSet
	// TotalLines is the file's line count when last seen.
	TotalLines int
}

// Full reports whether every line has been seen.
func (r *ReadRecord) Full() bool { return r.Lines.Covers(1, r.TotalLines) }

// Stale reports whether the file on disk differs from what was seen.
func (r *ReadRecord) Stale(fi fs.FileInfo) bool {
	return !fi.ModTime().Equal(r.ModTime) || fi.Size() != r.Size
}

// Record notes that lines [start, end] of path were shown, as of fi. A file
// that changed since an earlier read starts a fresh record: what was seen
// of the old content says nothing about the new.
func (s *Session) Record(path string, fi fs.FileInfo, totalLines, start, end int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reads[path]
	if r == nil || r.Stale(fi) {
		r = &ReadRecord{}
		s.reads[path] = r
	}
	r.ModTime, r.Size, r.TotalLines = fi.ModTime(), fi.Size(), totalLines
	r.Lines.Add(start, end)
}

// Lookup returns a copy of path's record, or nil if it was never read.
func (s *Session) Lookup(path string) *ReadRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reads[path]
	if r == nil {
		return nil
	}
	cp := *r
	cp.Lines = textfile.LineSet{}
	for _, rg := range r.Lines.Ranges() {
		cp.Lines.Add(rg.Start, rg.End)
	}
	return &cp
}

// AfterWrite re-records a file Tether itself just wrote, so its own write
// is never mistaken for someone else's. full says the agent knows every
// line (it wrote them all, or had read them all before the edit).
func (s *Session) AfterWrite(path string, fi fs.FileInfo, totalLines int, full bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reads[path]
	if r == nil {
		if !full {
			// Nothing seen before and not every line known now (an append
			// to an unread file): no record, so an edit still needs a read.
			return
		}
		r = &ReadRecord{}
		s.reads[path] = r
	}
	wasFull := r.Lines.Covers(1, r.TotalLines) && r.TotalLines > 0
	r.ModTime, r.Size, r.TotalLines = fi.ModTime(), fi.Size(), totalLines
	if full || wasFull {
		r.Lines = textfile.LineSet{}
		r.Lines.Add(1, totalLines)
	} else {
		r.Lines.Clip(totalLines)
	}
}

// Forget drops path's record (the file is gone).
func (s *Session) Forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reads, path)
}

// Moved carries a record from one path to another: the content did not
// change, so what was read is still known.
func (s *Session) Moved(from, to string, fi fs.FileInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.reads[from]; r != nil {
		delete(s.reads, from)
		r.ModTime, r.Size = fi.ModTime(), fi.Size()
		s.reads[to] = r
	}
}

// maxRepeats is how many identical calls in a row are let through.
const maxRepeats = 2

// CheckRepeat counts identical consecutive calls and refuses the third: a
// model repeating itself exactly is stuck in a loop, and a third identical
// answer will not unstick it.
func (s *Session) CheckRepeat(name string, args json.RawMessage) error {
	key := name + "\x00" + canonicalJSON(args)
	s.mu.Lock()
	defer s.mu.Unlock()
	if key == s.lastCall {
		s.repeats++
	} else {
		s.lastCall, s.repeats = key, 1
	}
	if s.repeats > maxRepeats {
		return fmt.Errorf("this exact %s call has now been made %d times in a row with the same arguments; "+
			"repeating it will not give a different answer. Change the arguments, try another approach, or ask the user", name, s.repeats)
	}
	return nil
}

// canonicalJSON makes argument order and spacing irrelevant to repeat detection.
func canonicalJSON(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return string(raw)
	}
	return string(out)
}
