package tool

import (
	"sync"
	"time"
)

// TurnGap is the pause that ends a chat turn: calls of one chat session
// that follow each other with less than this between the end of one and
// the start of the next, or that overlap, are one request (one undo
// checkpoint). A model works through its calls in a turn without pauses
// as long as a person takes to read and answer.
const TurnGap = 2 * time.Minute

// maxTurnSessions bounds the sessions Turns remembers beyond those whose
// turn is still going on.
const maxTurnSessions = 256

// Turns gives the calls of a chat session the request they belong to,
// where the client names the session but not the turn: the editor (whose
// chat hands a tool a token of the session, rebuilt for every call) and
// an MCP client (whose session is the connection). It is the one place
// that rule is kept.
type Turns struct {
	gap   time.Duration
	now   func() time.Time
	newID func() string

	mu        sync.Mutex
	bySession map[string]*turn
	byID      map[string]*turn
}

// turn is one session's current request.
type turn struct {
	session string
	id      string
	running int       // its calls now running
	last    time.Time // when its last call ended, or it was last asked for
}

// NewTurns makes a Turns whose turns end after a pause of gap, naming new
// requests with newID; now is its clock (time.Now but in tests).
func NewTurns(gap time.Duration, now func() time.Time, newID func() string) *Turns {
	return &Turns{gap: gap, now: now, newID: newID, bySession: map[string]*turn{}, byID: map[string]*turn{}}
}

// Request is the request of a call of session starting now: the session's
// current one while one of its calls runs, or its last call ended less
// than the gap ago; otherwise a new one. Asking counts as the session's
// activity: the gap starts again from now.
func (t *Turns) Request(session string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	tr := t.bySession[session]
	if tr == nil || tr.running == 0 && now.Sub(tr.last) > t.gap {
		t.forget(now)
		if tr != nil {
			delete(t.byID, tr.id)
		}
		tr = &turn{session: session, id: t.newID()}
		t.bySession[session] = tr
		t.byID[tr.id] = tr
	}
	tr.last = now
	return tr.id
}

// Enter marks a call of request id running; pair it with Leave. A request
// Turns did not give (the client named its own) is left alone.
func (t *Turns) Enter(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tr := t.byID[id]; tr != nil {
		tr.running++
	}
}

// Leave marks the end of a call of request id: the gap starts from now.
func (t *Turns) Leave(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tr := t.byID[id]; tr != nil {
		tr.running--
		tr.last = t.now()
	}
}

// forget drops the sessions whose turn has ended, once there are many, so
// that a long-lived daemon does not keep every session it has seen. The
// mutex is held.
func (t *Turns) forget(now time.Time) {
	if len(t.bySession) < maxTurnSessions {
		return
	}
	for s, tr := range t.bySession {
		if tr.running == 0 && now.Sub(tr.last) > t.gap {
			delete(t.bySession, s)
			delete(t.byID, tr.id)
		}
	}
}
