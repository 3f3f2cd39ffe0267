package tool

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"
	"time"
)

// ChangeLog keeps what Tether knows about who changed files: its own
// writes (and which agent made them), the calls that may change files
// outside the change pipeline (a shell command), and the saves the editor
// reports. A stale-file refusal reads it to tell the model who changed a
// file since it read it, which ends the loop of reading, editing and being
// refused that a bare "it changed" starts. One log serves a connection;
// its sub-agents share it. The nil log knows nothing.
type ChangeLog struct {
	mu     sync.Mutex
	writes map[string]loggedWrite // real path → Tether's last write of it
	saves  map[string]time.Time   // real path → the editor's last save of it
	calls  []loggedCall           // the latest changing calls, oldest first
}

// Bounds of what a log keeps: enough for a long session's recent past.
const (
	maxLoggedFiles = 4096
	maxLoggedCalls = 256
)

type loggedWrite struct {
	session    *Session
	tool, what string
	requestID  string
	at, mod    time.Time
	size       int64
}

type loggedCall struct {
	session   *Session
	tool      Tool
	name      string
	args      json.RawMessage // a copy, when short enough to describe later
	requestID string
	start     time.Time
	end       time.Time
}

// maxLoggedArgs bounds the arguments a logged call keeps, to be described
// only if a refusal needs them (most never are).
const maxLoggedArgs = 2048

// what says what the call did, in its tool's words where its arguments
// were kept.
func (c *loggedCall) what() string {
	if c.tool == nil || c.args == nil {
		return c.name
	}
	return c.tool.Describe(c.args)
}

// NewChangeLog makes an empty log.
func NewChangeLog() *ChangeLog {
	return &ChangeLog{writes: map[string]loggedWrite{}, saves: map[string]time.Time{}}
}

// NoteSave records that the editor saved path (a real path) at t.
func (l *ChangeLog) NoteSave(path string, t time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.saves) >= maxLoggedFiles {
		forgetOldest(l.saves, func(t time.Time) time.Time { return t })
	}
	l.saves[path] = t
}

// noteWrite records that call c wrote path, which now stands as fi.
func (l *ChangeLog) noteWrite(path string, c *Call, what string, fi fs.FileInfo) {
	if l == nil || fi == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.writes) >= maxLoggedFiles {
		forgetOldest(l.writes, func(w loggedWrite) time.Time { return w.at })
	}
	l.writes[path] = loggedWrite{session: c.Session, tool: c.Name, what: what, requestID: c.RequestID, at: time.Now(), mod: fi.ModTime(), size: fi.Size()}
}

// noteCall records a call of t that may have changed files by itself, and
// when it ran.
func (l *ChangeLog) noteCall(c *Call, t Tool, start, end time.Time) {
	if l == nil {
		return
	}
	var args json.RawMessage
	if len(c.Args) <= maxLoggedArgs {
		args = append(json.RawMessage(nil), c.Args...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.calls) == maxLoggedCalls {
		l.calls = append(l.calls[:0], l.calls[1:]...)
	}
	l.calls = append(l.calls, loggedCall{session: c.Session, tool: t, name: c.Name, args: args, requestID: c.RequestID, start: start, end: end})
}

func forgetOldest[V any](m map[string]V, when func(V) time.Time) {
	var oldest string
	var at time.Time
	for k, v := range m {
		if t := when(v); oldest == "" || t.Before(at) {
			oldest, at = k, t
		}
	}
	delete(m, oldest)
}

// Slack around the times the log compares with a file's modification
// time: a file system's clock and its time stamps' granularity, and an
// editor's save reported a moment after it happened.
const (
	callSlack = 2 * time.Second
	saveSlack = 5 * time.Second
)

// Explain says who changed path, which now stands as fi, for the agent of
// session sess in request requestID: Tether's own write by another agent,
// the user saving in the editor, a changing call of this request (or of
// another) that ran when the file changed; else outside Tether.
func (l *ChangeLog) Explain(path string, fi fs.FileInfo, sess *Session, requestID string, now time.Time) string {
	const outside = "outside Tether (no edit, command or editor save that Tether knows of explains it)"
	if l == nil || fi == nil {
		return outside
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	mod := fi.ModTime()
	if w, ok := l.writes[path]; ok && w.session != sess && w.mod.Equal(mod) && w.size == fi.Size() {
		return fmt.Sprintf("%s (its %s call, %s)", whichAgent(w.session, sess), w.what, ago(now, w.at))
	}
	if t, ok := l.saves[path]; ok && !mod.After(t.Add(callSlack)) && !t.After(mod.Add(saveSlack)) {
		return "the user saved it in the editor " + ago(now, t)
	}
	// The innermost changing call that was running when the file changed.
	// A call of this request comes first.
	better := func(c, best *loggedCall) bool {
		if mine := c.requestID == requestID; mine != (best.requestID == requestID) {
			return mine
		}
		return c.end.Sub(c.start) < best.end.Sub(best.start)
	}
	var best *loggedCall
	for i := range l.calls {
		c := &l.calls[i]
		if mod.Before(c.start.Add(-callSlack)) || mod.After(c.end.Add(callSlack)) {
			continue
		}
		if best == nil || better(c, best) {
			best = c
		}
	}
	if best != nil {
		whose := "of this request"
		if best.requestID != requestID {
			whose = "of request " + best.requestID
		}
		return fmt.Sprintf("the %s call %s (%s; it ended %s), which ran when the file changed", best.name, whose, best.what(), ago(now, best.end))
	}
	return outside
}

// whichAgent names the agent of session w as the agent of session s sees
// it.
func whichAgent(w, s *Session) string {
	for p := w; p != nil; p = p.parent {
		if p.parent == s {
			return "a sub-agent of yours"
		}
	}
	for p := s.parent; p != nil; p = p.parent {
		if p == w {
			return "the agent that started you"
		}
	}
	return "another agent working in this workspace"
}

// ago says how long before now t was, as people say it.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Second:
		return "less than a second ago"
	case d < time.Minute:
		return countOf(int(d/time.Second), "second") + " ago"
	case d < time.Hour:
		return countOf(int(d/time.Minute), "minute") + " ago"
	}
	return countOf(int(d/time.Hour), "hour") + " ago"
}

func countOf(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
