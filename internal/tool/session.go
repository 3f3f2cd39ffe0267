package tool

import (
	"bytes"
	"encoding/json"
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
	// kept is the bytes of content the read records keep, and clock
	// orders their uses, for dropping the least recently used content
	// past maxKeptBytes.
	kept  int
	clock uint64

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
	// Hash is a hash of the file's whole content as it was read (or as
	// Tether wrote it), when Known: a new time or size that left the bytes
	// alone is no change.
	Hash  uint64
	Known bool
	// Content is the file's bytes as read, kept for a file small enough
	// (see Seen), so that a refusal can show what changed since; nil
	// otherwise.
	Content []byte
	used    uint64
	// Lines is every line range the agent has been shown, each line whole.
	Lines textfile.LineSet
	// Cut are lines the agent was shown only the start of (read_file cuts
	// a very long line): not read, and said so when a change needs them.
	Cut textfile.LineSet
	// TotalLines is the file's line count when last seen.
	TotalLines int
}

// Full reports whether every line has been seen.
func (r *ReadRecord) Full() bool { return r.Lines.Covers(1, r.TotalLines) }

// Stale reports whether the file's time or size differs from what was
// seen: it may have changed (Same tells for sure).
func (r *ReadRecord) Stale(fi fs.FileInfo) bool {
	return !fi.ModTime().Equal(r.ModTime) || fi.Size() != r.Size
}

// Same reports whether data, a file's whole content, is what the record
// saw.
func (r *ReadRecord) Same(data []byte) bool {
	return r.Known && int64(len(data)) == r.Size && HashContent(data) == r.Hash
}

// Seen is what a read saw of a file's whole content: its hash, and the
// bytes themselves when the file is small enough to keep.
type Seen struct {
	Hash    uint64
	Known   bool
	Content []byte
}

// Limits of the content read records keep: a file larger than
// maxKeptFileBytes is known by its hash alone, and a session keeps at most
// maxKeptBytes, dropping the least recently used first.
const (
	maxKeptFileBytes = 1 << 20
	maxKeptBytes     = 32 << 20
)

// contentSeed seeds the content hashes of this process.
var contentSeed = maphash.MakeSeed()

// HashContent is the hash a read record keeps of a file's content.
func HashContent(data []byte) uint64 { return maphash.Bytes(contentSeed, data) }

// SeenOf is what seeing data, a file's whole content, tells. The content
// kept is a copy: the caller's bytes may be reused.
func SeenOf(data []byte) Seen {
	s := Seen{Hash: HashContent(data), Known: true}
	if len(data) <= maxKeptFileBytes {
		s.Content = bytes.Clone(data)
	}
	return s
}

// ContentHasher hashes a file's content as it is read, and keeps it when
// it is small enough, for Seen.
type ContentHasher struct {
	h    maphash.Hash
	buf  []byte
	keep bool
}

// NewContentHasher starts hashing a file of size bytes.
func NewContentHasher(size int64) *ContentHasher {
	c := &ContentHasher{keep: size <= maxKeptFileBytes}
	c.h.SetSeed(contentSeed)
	if c.keep {
		c.buf = make([]byte, 0, size)
	}
	return c
}

func (c *ContentHasher) Write(p []byte) (int, error) {
	c.h.Write(p)
	if c.keep {
		if len(c.buf)+len(p) > maxKeptFileBytes {
			c.keep, c.buf = false, nil
		} else {
			c.buf = append(c.buf, p...)
		}
	}
	return len(p), nil
}

// Seen is what the hasher saw, once the whole file went through it.
func (c *ContentHasher) Seen() Seen {
	s := Seen{Hash: c.h.Sum64(), Known: true}
	if c.keep {
		s.Content = c.buf
	}
	return s
}

// setSeen puts seen into r, keeping the session's kept content bounded.
// The caller holds s.mu.
func (s *Session) setSeen(r *ReadRecord, seen Seen) {
	s.kept -= len(r.Content)
	r.Hash, r.Known, r.Content = seen.Hash, seen.Known, seen.Content
	s.kept += len(r.Content)
	s.clock++
	r.used = s.clock
	for s.kept > maxKeptBytes {
		var oldest *ReadRecord
		for _, x := range s.reads {
			if x.Content != nil && x != r && (oldest == nil || x.used < oldest.used) {
				oldest = x
			}
		}
		if oldest == nil {
			break
		}
		s.kept -= len(oldest.Content)
		oldest.Content = nil
	}
}

// Record notes that lines [start, end] of path were shown, as of fi, all
// of them whole except the lines in cut (ascending), of which only a part
// was shown: those are not read. seen is the whole content as read. A
// file that changed since an earlier read starts a fresh record: what was
// seen of the old content says nothing about the new; a new time or size
// over the same bytes keeps what was seen.
func (s *Session) Record(path string, fi fs.FileInfo, seen Seen, totalLines, start, end int, cut ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reads[path]
	if r == nil || (r.Stale(fi) && !(r.Known && seen.Known && r.Hash == seen.Hash)) {
		r = &ReadRecord{}
		s.reads[path] = r
	}
	r.ModTime, r.Size, r.TotalLines = fi.ModTime(), fi.Size(), totalLines
	s.setSeen(r, seen)
	from := start
	for _, n := range cut {
		if n < start || n > end {
			continue
		}
		r.Lines.Add(from, n-1)
		r.Cut.Add(n, n)
		from = n + 1
	}
	r.Lines.Add(from, end)
}

// Lookup returns a copy of path's record, or nil if it was never read.
func (s *Session) Lookup(path string) *ReadRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reads[path]
	if r == nil {
		return nil
	}
	s.clock++
	r.used = s.clock
	cp := *r
	cp.Lines, cp.Cut = textfile.LineSet{}, textfile.LineSet{}
	for _, rg := range r.Lines.Ranges() {
		cp.Lines.Add(rg.Start, rg.End)
	}
	for _, rg := range r.Cut.Ranges() {
		cp.Cut.Add(rg.Start, rg.End)
	}
	return &cp
}

// AfterWrite re-records a file Tether itself just wrote (its content now
// data), so its own write is never mistaken for someone else's. full says
// the agent knows every line (it wrote them all, or had read them all
// before the edit).
func (s *Session) AfterWrite(path string, fi fs.FileInfo, data []byte, totalLines int, full bool) {
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
	s.setSeen(r, SeenOf(data))
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
	if r := s.reads[path]; r != nil {
		s.kept -= len(r.Content)
	}
	delete(s.reads, path)
}

// Restamp notes that path, whose content is what the record saw, now
// stands as fi: a new time or size over the same bytes.
func (s *Session) Restamp(path string, fi fs.FileInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.reads[path]; r != nil {
		r.ModTime, r.Size = fi.ModTime(), fi.Size()
	}
}

// Replace puts a new record for path, whose content is now data as of fi:
// the agent has seen the lines in lines whole and those in cut in part.
// A stale-file refusal uses it for what it showed.
func (s *Session) Replace(path string, fi fs.FileInfo, data []byte, lines, cut textfile.LineSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &ReadRecord{ModTime: fi.ModTime(), Size: fi.Size(), Lines: lines, Cut: cut, TotalLines: textfile.CountLines(data)}
	if old := s.reads[path]; old != nil {
		s.kept -= len(old.Content)
	}
	s.reads[path] = r
	s.setSeen(r, SeenOf(data))
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
		return Refusef("this exact %s call has now been made %d times in a row with the same arguments; "+
			"repeating it will not give a different answer. Change the arguments, try another approach, or ask the user", name, s.repeats)
	}
	return nil
}

// Uncount takes back the count of the last call, when it was this one:
// the user skipped or declined it, so it did not happen, and sending it
// again asks the user again rather than repeating an answer.
func (s *Session) Uncount(name string, args json.RawMessage) {
	sum := argsHash(args)
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == s.lastName && sum == s.lastArgs && s.repeats > 0 {
		s.repeats--
	}
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
			if s.Peek() != '"' || !s.String() { // keys are short
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
	if c == '"' {
		// A string is only looked through for its closing quote, not
		// checked as Value checks it: the arguments' check and decoding
		// read it again, and a file's content (a megabyte in one
		// write_file) has an escape every few dozen bytes, where the
		// checking scan slows down.
		if !s.SkipString() {
			return 0, false
		}
	} else if s.I = start; !s.Value() {
		return 0, false
	}
	return maphash.Bytes(repeatSeed, s.B[start:s.I]), true
}

// mixHash combines two hashes, order mattering.
func mixHash(a, b uint64) uint64 {
	a ^= b + 0x9e3779b97f4a7c15 + a<<6 + a>>2
	return a * 0xff51afd7ed558ccd
}
