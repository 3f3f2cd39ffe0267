package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/tether-dev/tether/internal/approvals"
	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// maxTerminalDiffLines is how much of a change's diff the terminal shows
// before a note of what was left out.
const maxTerminalDiffLines = 200

func runApprovals(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return approvalsMain(ctx, args, osIO())
}

// approvalsMain runs `tether approvals`: it answers the questions of the
// project's tether mcp sessions, one at a time, with the answers typed on
// stdin, until stdin ends or a signal stops it. Exit status: 0 stopped, 1
// the project's questions go elsewhere already, 2 usage error.
func approvalsMain(ctx context.Context, args []string, cio cmdIO) int {
	fs := flag.NewFlagSet("tether approvals", flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	dir := fs.String("workspace", ".", "the project's (primary) workspace folder")
	fs.Usage = func() {
		fmt.Fprint(cio.stderr, `usage: tether approvals [--workspace DIR]

Answers the approvals and ask_user questions of tether mcp for this project,
in this terminal: for MCP clients that cannot show them, or decline them
unseen. Each question shows the change's diff, the command, the address or
the path; type y (yes, this once), a (always), s (skip) or n (no, stop).
One approver answers a project at a time: an editor with the Tether
extension, or this. Stops at the end of input, or with Ctrl-C.

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(cio.stderr, "tether approvals: unexpected arguments %q: it takes only flags\n", fs.Args())
		return 2
	}
	if strings.TrimSpace(*dir) == "" {
		fmt.Fprintf(cio.stderr, "tether approvals: --workspace: %v\n", errEmptyFolder)
		return 2
	}
	ws, err := workspace.New(*dir)
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether approvals: %v\n", err)
		return 2
	}
	root := ws.Primary()
	log := slog.New(slog.NewTextHandler(cio.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l, err := approvals.Listen(root, log)
	if errors.Is(err, approvals.ErrBusy) {
		fmt.Fprintf(cio.stderr, "tether approvals: %v (%s): an editor with the Tether extension, or another tether approvals. Their questions go there.\n", err, root)
		return 1
	}
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether approvals: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := newTerminalApprover(cio.stdin, cio.stdout, cancel)
	fmt.Fprintf(cio.stdout, "Answering tether mcp's questions for %s. Ctrl-C stops.\n", root)
	if err := l.Serve(ctx, t); err != nil {
		fmt.Fprintf(cio.stderr, "tether approvals: %v\n", err)
		return 1
	}
	return 0
}

// terminalApprover asks on a terminal, one question at a time.
type terminalApprover struct {
	out   io.Writer
	lines <-chan string // closed at the end of input

	turn    chan struct{} // holds the question on the screen: one at a time
	waiting atomic.Int32
}

// newTerminalApprover reads answers from in, line by line; the end of in
// calls stop.
func newTerminalApprover(in io.Reader, out io.Writer, stop func()) *terminalApprover {
	lines := make(chan string)
	go func() {
		defer close(lines)
		defer stop()
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return &terminalApprover{out: out, lines: lines, turn: make(chan struct{}, 1)}
}

func (t *terminalApprover) Hello() protocol.ApprovalsHelloResult {
	return protocol.ApprovalsHelloResult{Approver: protocol.ApproverTerminal, Name: "tether approvals", PID: os.Getpid()}
}

// errInputEnded: the user closed the input; nobody answers any more.
var errInputEnded = errors.New("tether approvals stopped: its input ended")

// take waits for this question's turn; the returned func ends it.
func (t *terminalApprover) take(ctx context.Context) (func(), error) {
	t.waiting.Add(1)
	defer t.waiting.Add(-1)
	select {
	case t.turn <- struct{}{}:
		return func() { <-t.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// discardTyped drops lines typed before the question on screen was
// shown: an answer meant for a question that was withdrawn must not
// answer the next one.
func (t *terminalApprover) discardTyped() {
	for {
		select {
		case _, ok := <-t.lines:
			if !ok {
				return
			}
			fmt.Fprintln(t.out, "(input typed before this question was ignored)")
		default:
			return
		}
	}
}

// read waits for the next line the user types; ctx ending withdraws the
// question.
func (t *terminalApprover) read(ctx context.Context) (string, error) {
	select {
	case line, ok := <-t.lines:
		if !ok {
			return "", errInputEnded
		}
		return strings.TrimSpace(line), nil
	case <-ctx.Done():
		fmt.Fprintln(t.out, "\n(withdrawn: the call that asked was cancelled)")
		return "", ctx.Err()
	}
}

func (t *terminalApprover) header(from protocol.ApprovalsHelloParams) {
	fmt.Fprintf(t.out, "\n── %s asks (tether mcp, pid %d) ──\n", from.Client, from.PID)
	if n := t.waiting.Load(); n > 0 {
		fmt.Fprintf(t.out, "(%d more question%s waiting)\n", n, map[bool]string{true: "", false: "s"}[n == 1])
	}
}

func (t *terminalApprover) Approve(ctx context.Context, from protocol.ApprovalsHelloParams, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	done, err := t.take(ctx)
	if err != nil {
		return protocol.ApprovalRequestResult{}, err
	}
	defer done()
	t.header(from)
	t.discardTyped()
	fmt.Fprintf(t.out, "%s wants to: %s\n", req.Tool, req.Title)
	switch {
	case req.Diff != "":
		writeTerminalDiff(t.out, req.Diff)
		if req.Command != "" {
			fmt.Fprintf(t.out, "The command that made this change: %s\n", req.Command)
		}
	case req.Command != "":
		fmt.Fprintf(t.out, "  $ %s\n", req.Command)
	case req.URL != "":
		fmt.Fprintf(t.out, "  %s (host %s)\n", req.URL, req.Host)
	case req.Host != "":
		fmt.Fprintf(t.out, "  host %s\n", req.Host)
	case req.Path != "":
		fmt.Fprintf(t.out, "  %s\n", req.Path)
	}
	if len(req.Untrusted) > 0 {
		fmt.Fprintf(t.out, "This request read content from outside (%s) before writing project memory: check that it holds only what you want remembered.\n", strings.Join(req.Untrusted, ", "))
	}
	always := req.AlwaysScope
	if always == "" {
		always = "this step only"
	}
	for {
		fmt.Fprintf(t.out, "Allow? y: yes, this once · a: always (%s) · s: skip this step · n: no, stop > ", always)
		line, err := t.read(ctx)
		if err != nil {
			return protocol.ApprovalRequestResult{}, err
		}
		if a, ok := terminalAnswers[strings.ToLower(line)]; ok {
			fmt.Fprintf(t.out, "→ %s\n", a)
			return protocol.ApprovalRequestResult{Answer: a}, nil
		}
		fmt.Fprintln(t.out, "Type y, a, s or n.")
	}
}

var terminalAnswers = map[string]protocol.Answer{
	"y": protocol.AnswerYes, "yes": protocol.AnswerYes,
	"a": protocol.AnswerAlways, "always": protocol.AnswerAlways,
	"s": protocol.AnswerSkip, "skip": protocol.AnswerSkip,
	"n": protocol.AnswerNo, "no": protocol.AnswerNo,
}

func (t *terminalApprover) Ask(ctx context.Context, from protocol.ApprovalsHelloParams, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	done, err := t.take(ctx)
	if err != nil {
		return protocol.UserAskResult{}, err
	}
	defer done()
	t.header(from)
	t.discardTyped()
	fmt.Fprintln(t.out, q.Question)
	for i, o := range q.Options {
		fmt.Fprintf(t.out, "  %d) %s\n", i+1, o)
	}
	hint := "a number"
	if q.AllowFreeText {
		hint = "a number, or your own answer"
	}
	for {
		fmt.Fprintf(t.out, "Answer (%s) > ", hint)
		line, err := t.read(ctx)
		if err != nil {
			return protocol.UserAskResult{}, err
		}
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(q.Options) {
			return protocol.UserAskResult{Answer: q.Options[n-1]}, nil
		}
		if q.AllowFreeText && line != "" {
			return protocol.UserAskResult{Answer: line}, nil
		}
		fmt.Fprintf(t.out, "Type a number from 1 to %d.\n", len(q.Options))
	}
}

// writeTerminalDiff writes a change's counts and its diff, cut to
// maxTerminalDiffLines with a note of what was left out.
func writeTerminalDiff(w io.Writer, d string) {
	o := diff.Outlines(d)
	files := strings.Join(o.Files, ", ")
	fmt.Fprintf(w, "%s: %s in %d hunk%s\n", files, diff.Stats{Added: o.Added, Removed: o.Removed}, o.Hunks, map[bool]string{true: "", false: "s"}[o.Hunks == 1])
	lines := strings.SplitAfter(strings.TrimRight(d, "\n"), "\n")
	shown := lines
	if len(shown) > maxTerminalDiffLines {
		shown = shown[:maxTerminalDiffLines]
	}
	fmt.Fprint(w, strings.Join(shown, ""), "\n")
	if left := len(lines) - len(shown); left > 0 {
		fmt.Fprintf(w, "(%d more lines of the diff not shown)\n", left)
	}
}
