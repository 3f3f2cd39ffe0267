package tool

import (
	"fmt"
	"testing"
	"time"
)

// testTurns is a Turns on a clock the test moves, naming requests id-1,
// id-2, ...
func testTurns(gap time.Duration) (*Turns, *time.Time) {
	n := 0
	now := time.Unix(0, 0)
	t := NewTurns(gap, func() time.Time { return now }, func() string { n++; return fmt.Sprintf("id-%d", n) })
	return t, &now
}

// Calls of a session share the request while the session keeps calling;
// the gap counts from the end of a call, not its start; after a longer
// pause the next call starts a new request.
func TestTurnLastsWhileTheSessionKeepsCalling(t *testing.T) {
	turns, now := testTurns(time.Second)
	first := turns.Request("chat-1")
	turns.Enter(first)
	*now = now.Add(5 * time.Second) // a long call
	turns.Leave(first)
	*now = now.Add(900 * time.Millisecond)
	second := turns.Request("chat-1")
	if second != first {
		t.Fatalf("a call 0.9 s after the last ended: %s, want %s", second, first)
	}
	turns.Enter(second)
	turns.Leave(second)
	*now = now.Add(1001 * time.Millisecond) // the user took longer than a turn gap to answer
	if third := turns.Request("chat-1"); third == first {
		t.Fatal("a call after the gap is still in the old request")
	}
}

// A call still running keeps later calls of its session in its request,
// however long it runs.
func TestARunningCallKeepsTheTurn(t *testing.T) {
	turns, now := testTurns(time.Second)
	a := turns.Request("s")
	turns.Enter(a)
	*now = now.Add(10 * time.Second)
	if b := turns.Request("s"); b != a {
		t.Fatalf("%s while %s runs", b, a)
	}
	turns.Leave(a)
	*now = now.Add(2 * time.Second)
	if c := turns.Request("s"); c == a {
		t.Fatal("the turn outlived the gap after its last call")
	}
}

// Asking for the request counts as activity: a call that asks and then
// starts a moment later is in the same request even at the edge of the gap.
func TestAskingStartsTheGapAgain(t *testing.T) {
	turns, now := testTurns(time.Second)
	a := turns.Request("s")
	*now = now.Add(999 * time.Millisecond)
	if b := turns.Request("s"); b != a {
		t.Fatal("asked within the gap, got a new request")
	}
	*now = now.Add(999 * time.Millisecond)
	if c := turns.Request("s"); c != a {
		t.Fatal("the second ask did not start the gap again")
	}
}

func TestSessionsDoNotShareRequests(t *testing.T) {
	turns, _ := testTurns(time.Second)
	if a, b := turns.Request("a"), turns.Request("b"); a == b {
		t.Fatalf("sessions a and b share %s", a)
	}
}

// A request the client named itself, or one that ended, is left alone.
func TestEnterAndLeaveOfOtherRequests(t *testing.T) {
	turns, now := testTurns(time.Second)
	turns.Enter("client-named")
	turns.Leave("client-named")
	old := turns.Request("s")
	turns.Enter(old)
	turns.Leave(old)
	*now = now.Add(2 * time.Second)
	fresh := turns.Request("s")
	turns.Enter(old) // a late call under the old id does not revive it, nor hold the new one
	*now = now.Add(2 * time.Second)
	if turns.Request("s") == fresh {
		t.Fatal("a call of the old request kept the new one going")
	}
}

// Sessions whose turn ended are forgotten once there are many.
func TestTurnsForgetEndedSessions(t *testing.T) {
	turns, now := testTurns(time.Second)
	running := turns.Request("busy")
	turns.Enter(running)
	for i := range 3 * maxTurnSessions {
		turns.Request(fmt.Sprint("s", i))
		*now = now.Add(2 * time.Second)
	}
	if n := len(turns.bySession); n > maxTurnSessions+1 {
		t.Fatalf("%d sessions kept", n)
	}
	if turns.Request("busy") != running {
		t.Fatal("a session with a call running was forgotten")
	}
	if len(turns.byID) != len(turns.bySession) {
		t.Fatalf("%d ids for %d sessions", len(turns.byID), len(turns.bySession))
	}
}
