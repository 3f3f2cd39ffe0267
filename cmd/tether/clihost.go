package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// cliHost is the tool.Host (and tools.Asker) of `tether call`. Every step
// that needs the user's approval is shown on stderr and asked on the
// terminal, unless --yes granted everything up front. With no terminal
// and no --yes the step is refused: headless runs are never silently
// allowed.
type cliHost struct {
	tool.NoHost // no activity view, no model

	yes      bool
	stderr   io.Writer
	terminal func() (io.ReadWriteCloser, error)

	// mu keeps one prompt on the terminal at a time.
	mu sync.Mutex
}

// Approve shows the step and asks for y / a / s / n.
func (h *cliHost) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// --yes does not cover a memory write after outside content: that
	// one is asked on the terminal, or refused.
	if h.yes && len(req.Untrusted) == 0 {
		fmt.Fprintf(h.stderr, "tether: approved by --yes: %s\n", req.Title)
		return protocol.ApprovalRequestResult{Answer: protocol.AnswerYes}, nil
	}
	showRequest(h.stderr, req)
	tty, err := h.terminal()
	if err != nil {
		if len(req.Untrusted) > 0 {
			return protocol.ApprovalRequestResult{}, fmt.Errorf("%v: this step comes after the request read content from outside, so it needs a person at the terminal; --yes does not cover it", err)
		}
		return protocol.ApprovalRequestResult{}, fmt.Errorf("%v: %s", err, noTerminalAdvice(req.Kind))
	}
	defer tty.Close()
	// Without a scope, "always" is not offered: the step asks every time.
	prompt, help := "Allow? [y]es this once, [s]kip, [n]o: ", "Please answer y (yes, this once), s (skip this step) or n (no, stop)."
	if req.AlwaysScope != "" {
		prompt = fmt.Sprintf("Allow? [y]es, [a]lways (%s), [s]kip, [n]o: ", req.AlwaysScope)
		help = "Please answer y (yes, this once), a (always), s (skip this step) or n (no, stop)."
	}
	br := bufio.NewReader(tty)
	for {
		fmt.Fprint(tty, prompt)
		text, err := readLine(ctx, tty, br)
		if answer, ok := parseAnswer(text); ok && (answer != protocol.AnswerAlways || req.AlwaysScope != "") {
			return protocol.ApprovalRequestResult{Answer: answer}, nil
		}
		if err != nil {
			return protocol.ApprovalRequestResult{}, err
		}
		fmt.Fprintln(tty, help)
	}
}

// noTerminalAdvice tells the model (and through it the user) how to run
// this step headless. acceptEdits only covers file changes inside the
// workspace, so it is offered for those alone.
func noTerminalAdvice(kind protocol.ApprovalKind) string {
	if kind == protocol.ApprovalEdit {
		return "run tether call with --yes to approve every step, or with --mode acceptEdits to allow file changes inside the workspace"
	}
	return "run tether call with --yes to approve every step"
}

// showRequest prints what the user is asked to allow: every change as its
// diff and every command in full, so nothing is approved unseen.
func showRequest(w io.Writer, req protocol.ApprovalRequestParams) {
	fmt.Fprintf(w, "\ntether: %s wants to: %s\n", req.Tool, req.Title)
	switch {
	case req.Diff != "":
		fmt.Fprint(w, withNewline(req.Diff))
	case req.Command != "":
		fmt.Fprintf(w, "command: %s\n", req.Command)
		if req.Sandbox != nil && !*req.Sandbox {
			fmt.Fprintf(w, "outside the sandbox: it runs with all of your rights (files, network, Docker, other processes)\n")
		} else if req.Network {
			fmt.Fprintf(w, "with network access: the sandbox lets it reach the network\n")
		}
	case req.URL != "":
		fmt.Fprintf(w, "url: %s\nhost: %s\n", req.URL, req.Host)
	case req.Host != "":
		fmt.Fprintf(w, "host: %s\n", req.Host)
	case req.Path != "":
		fmt.Fprintf(w, "path: %s\n", req.Path)
	}
	if len(req.Untrusted) > 0 {
		fmt.Fprintf(w, "This request read content from outside, which may carry words that are not yours (so this is asked every time):\n")
		for _, u := range req.Untrusted {
			fmt.Fprintf(w, "  %s\n", u)
		}
		if req.Proposed != "" {
			fmt.Fprintf(w, "The whole text it would store:\n%s", withNewline(req.Proposed))
		}
	}
}

// parseAnswer maps what the user typed to an approval answer.
func parseAnswer(s string) (protocol.Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes":
		return protocol.AnswerYes, true
	case "a", "always":
		return protocol.AnswerAlways, true
	case "s", "skip":
		return protocol.AnswerSkip, true
	case "n", "no":
		return protocol.AnswerNo, true
	}
	return "", false
}

// Ask puts an ask_user question on the terminal: the user picks an option
// by number, types their own answer where allowed, or sends an empty line
// to leave it unanswered.
func (h *cliHost) Ask(ctx context.Context, q protocol.UserAskParams) (protocol.UserAskResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tty, err := h.terminal()
	if err != nil {
		return protocol.UserAskResult{}, err
	}
	defer tty.Close()
	fmt.Fprintf(tty, "\ntether asks: %s\n", q.Question)
	for i, o := range q.Options {
		fmt.Fprintf(tty, "  %d) %s\n", i+1, o)
	}
	prompt := fmt.Sprintf("Answer 1-%d", len(q.Options))
	if q.AllowFreeText {
		prompt += " or type your own answer"
	}
	prompt += " (empty line: no answer): "
	br := bufio.NewReader(tty)
	for {
		fmt.Fprint(tty, prompt)
		text, err := readLine(ctx, tty, br)
		text = strings.TrimSpace(text)
		if text == "" {
			if err != nil && ctx.Err() != nil {
				return protocol.UserAskResult{}, err
			}
			return protocol.UserAskResult{Cancelled: true}, nil
		}
		if n, convErr := strconv.Atoi(text); convErr == nil && n >= 1 && n <= len(q.Options) {
			return protocol.UserAskResult{Answer: q.Options[n-1]}, nil
		}
		if q.AllowFreeText {
			return protocol.UserAskResult{Answer: text}, nil
		}
		if err != nil {
			return protocol.UserAskResult{Cancelled: true}, nil
		}
		fmt.Fprintf(tty, "Please answer with a number from 1 to %d.\n", len(q.Options))
	}
}

// readLine reads one line from the terminal. A cancelled context closes
// the terminal, which ends the pending read, so no goroutine is left
// waiting for a key press.
func readLine(ctx context.Context, tty io.Closer, br *bufio.Reader) (string, error) {
	type line struct {
		text string
		err  error
	}
	lines := make(chan line, 1)
	go func() {
		text, err := br.ReadString('\n')
		lines <- line{text, err}
	}()
	select {
	case <-ctx.Done():
		tty.Close()
		return "", ctx.Err()
	case got := <-lines:
		if errors.Is(got.err, io.EOF) {
			got.err = errors.New("the terminal closed before an answer was given")
		}
		return got.text, got.err
	}
}

// PlanChanged shows nothing: the plan is already in the todo tool's
// result, which is printed.
func (h *cliHost) PlanChanged(context.Context, []protocol.TodoItem) {}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
