package tool

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io/fs"
	"sort"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/jsonscan"
	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/protocol"
)

// Session holds one agent's memory of the files it has seen. Each agent (a
// chat, a sub-agent) gets its own, so one agent's reads never license
// another's edits.
type Session struct {
	mu    sync.Mutex
	reads map[string]*ReadRecord

	// The last call (its tool and a hash of its arguments) and how many
	// times in a row it came.
	lastName string
	lastArgs uint64
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
	sum := argsHash(args)
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == s.lastName && sum == s.lastArgs {
		s.repeats++
	} else {
		s.lastName, s.lastArgs, s.repeats = name, sum, 1
	}
	if s.repeats > maxRepeats {
		return fmt.Errorf("this exact %s call has now been made %d times in a row with the same arguments; "+
			"repeating it will not give a different answer. Change the arguments, try another approach, or ask the user", name, s.repeats)
	}
	return nil
}

// repeatSeed seeds the argument hashes of this process.
var repeatSeed = maphash.MakeSeed()

// argsHash hashes arguments as they came, without decoding them: the
// order of an object's members and the spacing between tokens do not
// change it (so the same call sent twice by different encoders is still
// the same call). Text that is not JSON is hashed as it is.
func argsHash(raw json.RawMessage) uint64 {
	s := jsonscan.Scanner{B: raw, MaxDepth: 10000}
	sum, ok := hashValue(&s)
	if s.Space(); !ok || s.Fault != jsonscan.OK || s.I != len(raw) {
		return maphash.Bytes(repeatSeed, raw)
	}
	return sum
}

func hashValue(s *jsonscan.Scanner) (uint64, bool) {
	c := s.Peek()
	start := s.I
	switch c {
	case '{':
		if !s.Enter() {
			return 0, false
		}
		s.I++
		var members uint64 // a sum: the members' order does not count
		for more := s.Peek() != '}'; more; {
			k := s.I
			if s.Peek() != '"' || !s.String() {
				return 0, false
			}
			key := maphash.Bytes(repeatSeed, s.B[k:s.I])
			if !s.Colon() {
				return 0, false
			}
			v, ok := hashValue(s)
			if !ok {
				return 0, false
			}
			members += mixHash(key, v)
			if more, ok = s.Next('}'); !ok {
				return 0, false
			}
			if !more {
				s.Leave()
				return mixHash(members, '{'), true
			}
		}
		s.I++
		s.Leave()
		return mixHash(members, '{'), true
	case '[':
		if !s.Enter() {
			return 0, false
		}
		s.I++
		elems := uint64('[')
		for more := s.Peek() != ']'; more; {
			v, ok := hashValue(s)
			if !ok {
				return 0, false
			}
			elems = mixHash(elems, v)
			if more, ok = s.Next(']'); !ok {
				return 0, false
			}
			if !more {
				s.Leave()
				return elems, true
			}
		}
		s.I++
		s.Leave()
		return elems, true
	}
	if s.I = start; !s.Value() {
		return 0, false
	}
	return maphash.Bytes(repeatSeed, s.B[start:s.I]), true
}

// mixHash combines two hashes, order mattering.
func mixHash(a, b uint64) uint64 {
	a ^= b + 0x9e3779b97f4a7c15 + a<<6 + a>>2
	return a * 0xff51afd7ed558ccd
}
