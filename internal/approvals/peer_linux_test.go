package approvals

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
)

// nobody is the user id the helper runs as: another user of the machine.
var nobody = uint32(65534)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("running a peer as another user needs root")
	}
}

// Another user cannot reach an approver's socket: the folder keeps them
// out before the socket is even seen.
func TestAnotherUserCannotReachTheSocket(t *testing.T) {
	needRoot(t)
	isolate(t)
	root := t.TempDir()
	f := &fake{answer: protocol.AnswerYes}
	l := serve(t, root, f)
	got := startHelper(t, helperDial, l.Addr(), &nobody).first
	if !strings.HasPrefix(got, "dial-error") || !strings.Contains(got, "permission denied") {
		t.Errorf("another user dialing the approver: %s", got)
	}
	assertNotAsked(t, f)
}

// Where the folder and the socket were opened up to everyone (by hand, by
// a careless umask), the approver still refuses another user: the
// kernel's record of the peer's user id decides, not the file modes.
func TestApproverRefusesAnotherUsersConnection(t *testing.T) {
	needRoot(t)
	dir := openDir(t)
	path := filepath.Join(dir, "open.sock")
	ln, addr, release, err := listenAt(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
	l := newListener(ln, addr, release, nil)
	f := &fake{answer: protocol.AnswerYes}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, f) }()
	defer func() {
		cancel()
		<-done
	}()
	got := startHelper(t, helperDial, path, &nobody).first
	if !strings.HasPrefix(got, "hello-error") {
		t.Errorf("another user's connection was not refused: %s", got)
	}
	assertNotAsked(t, f)
}

// tether mcp refuses an approver that runs as another user: no question
// (and no diff) crosses to it.
func TestAskerRefusesAnotherUsersApprover(t *testing.T) {
	needRoot(t)
	dir := openDir(t)
	path := filepath.Join(dir, "theirs.sock")
	startHelper(t, helperAt, path, &nobody)
	c, err := dialAt(context.Background(), path)
	if err != nil {
		t.Fatalf("dialing: %v", err)
	}
	conn, err := hello(context.Background(), c, hi)
	if err == nil {
		conn.Close()
		t.Fatal("an approver running as another user was accepted")
	}
	if !strings.Contains(err.Error(), "65534") {
		t.Errorf("the refusal does not name the other user: %v", err)
	}
}

func assertNotAsked(t *testing.T, f *fake) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.asked) != 0 {
		t.Errorf("the approver was asked %+v", f.asked)
	}
}
