package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/jsonrpc2"
	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/internal/approvals"
	"github.com/tether-dev/tether/internal/mcp"
	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/protocol"
)

// editor is a scripted extension: a client of a real `tether serve` that
// answers its approvals and questions and records them.
type editor struct {
	*rpctest.Daemon
	mu     sync.Mutex
	asked  []protocol.ApprovalRequestParams
	asks   []protocol.UserAskParams
	answer protocol.ApprovalRequestResult
}

func (e *editor) handle(_ context.Context, method string, params json.RawMessage) (any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch method {
	case protocol.MethodApprovalRequest:
		var p protocol.ApprovalRequestParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		e.asked = append(e.asked, p)
		return e.answer, nil
	case protocol.MethodUserAsk:
		var q protocol.UserAskParams
		if err := json.Unmarshal(params, &q); err != nil {
			return nil, err
		}
		e.asks = append(e.asks, q)
		return protocol.UserAskResult{Answer: q.Options[0]}, nil
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

func (e *editor) approvals() []protocol.ApprovalRequestParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.ApprovalRequestParams(nil), e.asked...)
}

// startEditor runs `tether serve` on the fixture's workspace, initialized
// by an editor that answers approvals and questions.
func (f *fixture) startEditor(t *testing.T, answer protocol.ApprovalRequestResult) *editor {
	t.Helper()
	e := &editor{answer: answer}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := rpctest.Start(context.Background(), tetherBin, f.env, e.handle)
	if err != nil {
		t.Fatal(err)
	}
	e.Daemon = d
	t.Cleanup(func() {
		select {
		case <-d.Exited():
		default:
			d.Kill()
		}
		<-d.Done()
	})
	var init protocol.InitializeResult
	if _, err := d.Call(ctx, protocol.MethodInitialize, protocol.InitializeParams{
		ClientInfo:       protocol.ClientInfo{Name: "Test Editor"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: protocolURI(f.ws), Name: "ws"}},
		Capabilities:     protocol.ClientCapabilities{Approval: true, AskUser: true},
	}, &init); err != nil {
		t.Fatalf("initialize: %v\n%s", err, d.Stderr())
	}
	if err := d.Notify(ctx, protocol.MethodInitialized, struct{}{}); err != nil {
		t.Fatal(err)
	}
	return e
}

// stop shuts the editor's daemon down as the extension does.
func (e *editor) stop(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := e.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	_ = e.Notify(ctx, protocol.MethodExit, nil)
	if code, err := e.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("serve exited %d, %v\n%s", code, err, e.Stderr())
	}
}

func protocolURI(path string) lsp.DocumentURI { return lsp.DocumentURI(fileURI(path)) }

// socket is where the fixture's project takes its questions.
func (f *fixture) socket(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", f.home)
	p, err := approvals.Address(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// With VS Code (here a scripted extension) connected to the project's
// tether serve, tether mcp's approvals and questions go to it, not to a
// client that declines them unseen: the edit is reviewed in the editor and
// written, its checkpoint is the editor's to list, and once the editor is
// gone its socket is too.
func TestEditorAnswersWhenTheClientDeclinesUnseen(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "one\n")
	ed := f.startEditor(t, protocol.ApprovalRequestResult{Answer: protocol.AnswerYes})
	decliner := &elicitor{action: "decline"}
	s := f.connect(t, newClient(&sdk.ClientOptions{ElicitationHandler: decliner.handle}), v1125, "--instant-decline", "1h")

	mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "a.txt"}))
	res := s.call(t, "edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"})
	var got mcp.ChangeResult
	structured(t, res, &got)
	if got.Status != protocol.StatusWritten || f.read(t, "a.txt") != "two\n" {
		t.Fatalf("status %s, file %q: %s\nserve:\n%s", got.Status, f.read(t, "a.txt"), text(res), ed.Stderr())
	}
	if n := len(decliner.prompts()); n != 0 {
		t.Errorf("the client was asked %d times although an editor answers", n)
	}
	asked := ed.approvals()
	if len(asked) != 1 {
		t.Fatalf("the editor was asked %d approvals", len(asked))
	}
	a := asked[0]
	if a.Kind != protocol.ApprovalEdit || a.From != "tether-test" || a.Original != "one\n" || a.Proposed != "two\n" || len(a.Hunks) != 1 || !strings.Contains(a.Diff, "+two") {
		t.Errorf("the editor's review lacks what the chat panel's has: %+v", a)
	}

	// ask_user goes there too.
	ans := mustOK(t, "ask_user", s.call(t, "ask_user", map[string]any{"question": "Which colour?", "options": []string{"red", "blue"}}))
	if !strings.Contains(ans, "red") {
		t.Errorf("ask_user: %s", ans)
	}

	// The editor lists the checkpoint tether mcp made: one undo store.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var list protocol.UndoListResult
	if _, err := ed.Call(ctx, protocol.MethodUndoList, struct{}{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Checkpoints) != 1 || list.Checkpoints[0].ID != got.Checkpoint {
		t.Errorf("the editor lists %+v, want tether mcp's checkpoint %s", list.Checkpoints, got.Checkpoint)
	}

	sock := f.socket(t)
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("the editor's socket %s: %v", sock, err)
	}
	ed.stop(t)
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after tether serve ended: %v", err)
	}
	// Without the editor the client's unseen decline is reported as such.
	res = s.call(t, "write_file", map[string]any{"path": "b.txt", "content": "b\n"})
	structured(t, res, &got)
	if got.Status != protocol.StatusRefused || !strings.Contains(got.Message, "declined without showing the question") {
		t.Errorf("without the editor: %s %s", got.Status, got.Message)
	}
}

// Killed, tether serve leaves its socket behind; the next approver
// replaces it, and tether mcp never takes the dead one for an answer.
func TestKilledEditorsSocketIsReplaced(t *testing.T) {
	f := newFixture(t)
	ed := f.startEditor(t, protocol.ApprovalRequestResult{Answer: protocol.AnswerYes})
	sock := f.socket(t)
	ed.KillDaemon()
	<-ed.Exited()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("a killed daemon's socket should be left: %v", err)
	}
	s := f.connect(t, newClient(nil), v1125)
	res := s.call(t, "write_file", map[string]any{"path": "b.txt", "content": "b\n"})
	if !res.IsError || !strings.Contains(text(res), "no editor or `tether approvals` is answering") {
		t.Errorf("with a dead editor's socket: %s", text(res))
	}
	ap := f.startApprovals(t)
	defer ap.close(t)
	go func() { ap.waitFor(t, "Allow?"); ap.typeLine(t, "y") }()
	mustOK(t, "write_file", s.call(t, "write_file", map[string]any{"path": "b.txt", "content": "b\n"}))
}

// approvalsProc is a running `tether approvals` whose stdin the test types.
type approvalsProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *syncBuffer
	done  chan error
}

func (f *fixture) startApprovals(t *testing.T, args ...string) *approvalsProc {
	t.Helper()
	cmd := exec.Command(tetherBin, append([]string{"approvals", "--workspace", f.ws}, args...)...)
	cmd.Env = f.env
	p := &approvalsProc{cmd: cmd, out: &syncBuffer{}, done: make(chan error, 1)}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	cmd.Stdout = p.out
	cmd.Stderr = p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	p.waitFor(t, "Answering tether mcp's questions")
	return p
}

// waitFor waits until the output holds s; it fails the test if the
// process ends first.
func (p *approvalsProc) waitFor(t *testing.T, s string) string {
	deadline := time.After(60 * time.Second)
	for {
		if out := p.out.String(); strings.Contains(out, s) {
			return out
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Errorf("tether approvals ended (%v) before printing %q:\n%s", err, s, p.out.String())
			return ""
		case <-deadline:
			t.Errorf("tether approvals did not print %q:\n%s", s, p.out.String())
			return ""
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (p *approvalsProc) typeLine(t *testing.T, line string) {
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Errorf("typing %q: %v", line, err)
	}
}

// close ends its input: it must stop, cleanly.
func (p *approvalsProc) close(t *testing.T) {
	t.Helper()
	p.stdin.Close()
	if err := <-p.done; err != nil {
		t.Errorf("tether approvals exited with %v:\n%s", err, p.out.String())
	}
	p.done <- nil
}

// `tether approvals` in a terminal answers tether mcp's questions for a
// client that cannot show them: it shows the change's diff and takes y, n
// and an option's number; at the end of its input it stops and its socket
// is gone.
func TestTerminalAnswersPendingQuestions(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "one\n")
	ap := f.startApprovals(t)
	s := f.connect(t, newClient(nil), v1125)
	mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "a.txt"}))

	answer := func(line string, wait ...string) {
		go func() {
			for _, w := range wait {
				ap.waitFor(t, w)
			}
			ap.typeLine(t, line)
		}()
	}
	answer("y", "tether-test asks", "edit_file wants to: Edit a.txt", "-one", "+two", "Allow?")
	res := s.call(t, "edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"})
	var got mcp.ChangeResult
	structured(t, res, &got)
	if got.Status != protocol.StatusWritten || f.read(t, "a.txt") != "two\n" {
		t.Fatalf("after y: %s, file %q", got.Status, f.read(t, "a.txt"))
	}

	before := len(ap.out.String())
	answer("n", "Overwrite a.txt")
	res = s.call(t, "write_file", map[string]any{"path": "a.txt", "content": "three\n"})
	structured(t, res, &got)
	if got.Status != protocol.StatusDeclined || f.read(t, "a.txt") != "two\n" {
		t.Errorf("after n: %s, file %q", got.Status, f.read(t, "a.txt"))
	}
	if shown := ap.out.String()[before:]; !strings.Contains(shown, "+three") || !strings.Contains(shown, "-two") {
		t.Errorf("the terminal did not show the diff:\n%s", shown)
	}

	answer("2", "Which colour?", "2) blue")
	if got := mustOK(t, "ask_user", s.call(t, "ask_user", map[string]any{"question": "Which colour?", "options": []string{"red", "blue"}})); !strings.Contains(got, "blue") {
		t.Errorf("ask_user: %s", got)
	}

	sock := f.socket(t)
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s: %v %v", sock, fi, err)
	}
	ap.close(t)
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after tether approvals ended: %v", err)
	}
}

// --approvals editor and --approvals terminal insist on their approver.
func TestRoutesInsistOnTheirApprover(t *testing.T) {
	f := newFixture(t)
	s := f.connect(t, newClient(nil), v1125, "--approvals", "editor")
	if res := s.call(t, "write_file", map[string]any{"path": "b.txt", "content": "b\n"}); !strings.Contains(text(res), "no editor is answering") {
		t.Errorf("--approvals editor without an editor: %s", text(res))
	}
	ap := f.startApprovals(t)
	defer ap.close(t)
	if res := s.call(t, "write_file", map[string]any{"path": "c.txt", "content": "c\n"}); !strings.Contains(text(res), "asks the editor, but tether approvals answers") {
		t.Errorf("--approvals editor with only tether approvals: %s", text(res))
	}
	if _, err := os.Stat(f.ws + "/c.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt was written: %v", err)
	}
	// A second approver for the same project is turned away.
	cmd := exec.Command(tetherBin, "approvals", "--workspace", f.ws)
	cmd.Env = f.env
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "another approver") {
		t.Errorf("a second tether approvals: %v\n%s", err, out)
	}
}
