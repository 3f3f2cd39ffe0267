//go:build unix

package approvals

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/protocol"
)

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	goleak.VerifyTestMain(m)
}

// isolate gives a test its own runtime folder.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	return dir
}

// fake answers every question the same way and records what it was asked.
type fake struct {
	answer protocol.Answer
	// block, when set, makes Approve wait until its question is withdrawn.
	block bool

	mu        sync.Mutex
	asked     []protocol.ApprovalRequestParams
	from      []protocol.ApprovalsHelloParams
	withdrawn int
	started   chan struct{}
}

func (f *fake) Hello() protocol.ApprovalsHelloResult {
	return protocol.ApprovalsHelloResult{Approver: protocol.ApproverTerminal, Name: "fake", PID: os.Getpid()}
}

func (f *fake) Approve(ctx context.Context, from protocol.ApprovalsHelloParams, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req)
	f.from = append(f.from, from)
	f.mu.Unlock()
	if f.started != nil {
		close(f.started)
	}
	if f.block {
		<-ctx.Done()
		f.mu.Lock()
		f.withdrawn++
		f.mu.Unlock()
		return protocol.ApprovalRequestResult{}, ctx.Err()
	}
	return protocol.ApprovalRequestResult{Answer: f.answer, Hunks: []int{2}}, nil
}

func (f *fake) Ask(_ context.Context, _ protocol.ApprovalsHelloParams, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	return protocol.UserAskResult{Answer: q.Options[len(q.Options)-1]}, nil
}

// serve listens for the project at root and serves a until the test ends.
func serve(t *testing.T, root string, a Approver) *Listener {
	t.Helper()
	l, err := Listen(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, a) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return l
}

var hi = protocol.ApprovalsHelloParams{Client: "Test Client", PID: 42, Workspace: "/w"}

// A question crosses the channel and its answer comes back whole.
func TestRoundTrip(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	f := &fake{answer: protocol.AnswerYes}
	serve(t, root, f)
	ctx := context.Background()
	c, err := Dial(ctx, root, hi)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Approver(); got.Approver != protocol.ApproverTerminal || got.Name != "fake" {
		t.Errorf("hello answered %+v", got)
	}
	content := "proposed\n"
	res, err := c.Approve(ctx, protocol.ApprovalRequestParams{Tool: "edit_file", Title: "Edit a.txt", Kind: protocol.ApprovalEdit, Proposed: content, Diff: "--- a/a.txt\n"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != protocol.AnswerYes || len(res.Hunks) != 1 || res.Hunks[0] != 2 {
		t.Errorf("answer %+v", res)
	}
	f.mu.Lock()
	if len(f.asked) != 1 || f.asked[0].Proposed != content || f.from[0] != hi {
		t.Errorf("the approver was asked %+v by %+v", f.asked, f.from)
	}
	f.mu.Unlock()

	c2, err := Dial(ctx, root, hi)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if a, err := c2.Ask(ctx, protocol.UserAskParams{Question: "Which?", Options: []string{"a", "b"}}); err != nil || a.Answer != "b" {
		t.Errorf("ask: %+v %v", a, err)
	}
}

// Nobody listening is ErrNoApprover; a second approver of the same
// project is ErrBusy; another project has a channel of its own.
func TestOneApproverPerProject(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	if _, err := Dial(context.Background(), root, hi); !errors.Is(err, ErrNoApprover) {
		t.Fatalf("dial with nobody listening: %v, want ErrNoApprover", err)
	}
	l := serve(t, root, &fake{answer: protocol.AnswerNo})
	if _, err := Listen(root, nil); !errors.Is(err, ErrBusy) {
		t.Errorf("a second approver: %v, want ErrBusy", err)
	}
	other := serve(t, t.TempDir(), &fake{answer: protocol.AnswerYes})
	if other.Addr() == l.Addr() {
		t.Errorf("two projects share %s", l.Addr())
	}
}

// The socket is the owner's alone, in a folder closed to others, and it is
// gone once the approver stops.
func TestSocketIsOwnerOnlyAndRemoved(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	l, err := Listen(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s has mode %v, want a socket with 0600", l.Addr(), fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(l.Addr()))
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("its folder has mode %v (%v), want 0700", di.Mode(), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, &fake{}) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(l.Addr()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after the approver stopped: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(l.Addr()), "*")); len(left) != 0 {
		t.Errorf("the approver left %v behind", left)
	}
	// The channel is free again.
	l2, err := Listen(root, nil)
	if err != nil {
		t.Fatalf("listening again: %v", err)
	}
	l2.Close()
}

// A socket left by an approver that was killed (its lock died with it) is
// replaced; while an approver lives, its socket is not.
func TestStaleSocketIsReplaced(t *testing.T) {
	runtime := isolate(t)
	root := t.TempDir()
	child := startHelper(t, helperListen, root, nil, "XDG_RUNTIME_DIR="+runtime)
	if _, err := Listen(root, nil); !errors.Is(err, ErrBusy) {
		t.Fatalf("listening beside a live approver: %v, want ErrBusy", err)
	}
	path := child.kill(t)
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the killed approver's socket should still be there: %v", err)
	}
	if _, err := Dial(context.Background(), root, hi); !errors.Is(err, ErrNoApprover) {
		t.Errorf("dialing a dead approver's socket: %v, want ErrNoApprover", err)
	}
	f := &fake{answer: protocol.AnswerSkip}
	serve(t, root, f)
	c, err := Dial(context.Background(), root, hi)
	if err != nil {
		t.Fatalf("dialing the new approver: %v", err)
	}
	defer c.Close()
	if res, err := c.Approve(context.Background(), protocol.ApprovalRequestParams{Title: "x"}); err != nil || res.Answer != protocol.AnswerSkip {
		t.Errorf("answer %+v %v", res, err)
	}
}

// Ending the asker's context withdraws the question: the approver's
// context ends, and the asker gets its own context's error.
func TestWithdraw(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	f := &fake{block: true, started: make(chan struct{})}
	serve(t, root, f)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Dial(ctx, root, hi)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Approve(ctx, protocol.ApprovalRequestParams{Title: "x"})
		errc <- err
	}()
	<-f.started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the withdrawn question returned %v", err)
	}
	c.Close()
}

// Closing the listener withdraws the questions still open, and Serve
// returns without waiting for their answers.
func TestCloseWithdrawsOpenQuestions(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	l, err := Listen(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{block: true, started: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- l.Serve(context.Background(), f) }()
	c, err := Dial(context.Background(), root, hi)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Approve(context.Background(), protocol.ApprovalRequestParams{Title: "x"})
		errc <- err
	}()
	<-f.started
	l.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if err := <-errc; err == nil {
		t.Error("the asker got an answer to a withdrawn question")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.withdrawn != 1 {
		t.Errorf("%d questions withdrawn, want 1", f.withdrawn)
	}
}
