// Package agent runs a sub-agent: a child agent loop with a prompt of its
// own, whose model turns come from the client (Host.Chat, model/chat) and
// whose tool calls go through the same registry, guardrails and approvals
// as the parent's.
//
// An inspect child may only read (read_file, grep, glob, list_dir), so
// several can run at once. A work child may use every tool but agent
// itself, and the work children of one request run one at a time. Each
// child has a session of its own: what it read never licenses an edit by
// its parent. Its changes belong to the parent's request, so one undo
// restores the parent's changes and its children's together.
//
// A child stops when it answers without calling a tool, or at the first
// limit it reaches: its turns, the model's window, its wall time, or its
// parent's cancellation. What comes back says which.
package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// Mode is what a child may do.
type Mode string

const (
	Inspect Mode = "inspect" // read only; children run concurrently
	Work    Mode = "work"    // every tool but agent; one child at a time per request
)

// Name is the agent tool's name, which no child is given.
const Name = "agent"

// InspectTools are the only tools an inspect child is given.
var InspectTools = []string{"read_file", "grep", "glob", "list_dir"}

// Limits a child runs under, besides its turns (Settings.AgentTurns).
const (
	// WallTime bounds a child from its first turn to its answer.
	WallTime = 10 * time.Minute
	// ShellTimeout is a child's default shell timeout: a sub-agent runs
	// builds and tests on its own, with nobody to raise the timeout.
	ShellTimeout = 5 * time.Minute
	// DefaultWindow is the model's window, in tokens, when the client does
	// not report it.
	DefaultWindow = 128_000
	// charsPerToken estimates tokens where the client counted none.
	charsPerToken = 4
)

// ErrNested refuses an agent call made by a sub-agent: children do not
// start children.
var ErrNested = errors.New("a sub-agent cannot start sub-agents of its own")

// Task is what the parent asks of a child.
type Task struct {
	Prompt      string
	Mode        Mode
	Description string
}

// Options tune a run; zero fields take the defaults (the settings' turns,
// WallTime). Tests shrink them.
type Options struct {
	MaxTurns int
	WallTime time.Duration
}

// Outcome is what a child did.
type Outcome struct {
	Mode Mode
	// Final is the child's last message: its answer when it finished.
	Final string
	Turns int
	Calls int
	// Read lists the files the child read and did not change, relative to
	// the workspace.
	Read []string
	// Changed lists the files the child changed, with their diff summary.
	Changed []FileChange
	// Stopped says which limit stopped the child before it finished; empty
	// when it finished.
	Stopped string
	// Cancelled is set when the parent's call was cancelled.
	Cancelled bool
}

// Finished says the child answered on its own.
func (o Outcome) Finished() bool { return o.Stopped == "" && !o.Cancelled }

// Run runs one child for the call parent (an agent call) until it answers
// or a limit stops it. Its error is for a child that could not start: a
// nested call (ErrNested), a client without a model (tool.ErrNoModel), or
// the parent's cancellation while it waited for its turn to work.
func Run(ctx context.Context, parent *tool.Call, task Task, opts Options) (Outcome, error) {
	if parent.Session.Depth() > 0 {
		return Outcome{}, ErrNested
	}
	maxTurns := opts.MaxTurns
	if maxTurns <= 0 {
		maxTurns = parent.Env.Settings.AgentTurns()
	}
	wall := opts.WallTime
	if wall <= 0 {
		wall = WallTime
	}
	if task.Mode == Work {
		release, err := workLocks.acquire(ctx, lockKey(parent))
		if err != nil {
			return Outcome{Mode: task.Mode, Cancelled: true}, err
		}
		defer release()
	}
	r := newRun(parent, task)
	runCtx, cancel := context.WithTimeoutCause(ctx, wall, errWallTime)
	defer cancel()
	err := r.loop(ctx, runCtx, maxTurns, wall)
	return r.outcome(), err
}

// errWallTime is the cause of a child's context when its wall time ends.
var errWallTime = errors.New("the sub-agent's wall time ran out")

// run is one child's state.
type run struct {
	parent  *tool.Call
	task    Task
	env     *tool.Env
	session *tool.Session
	reg     *tool.Registry
	allowed map[string]bool
	tools   []protocol.ChatTool
	names   []string

	msgs    []protocol.ChatMessage
	out     Outcome
	changes changeSet
	calls   int
}

func newRun(parent *tool.Call, task Task) *run {
	env := *parent.Env // its web client too: the child shares the pages kept
	env.Settings.ShellTimeout = max(ShellTimeout, parent.Env.Settings.ShellDefaultTimeout())
	r := &run{
		parent:  parent,
		task:    task,
		env:     &env,
		session: tool.NewChildSession(parent.Session),
		reg:     parent.Registry,
		allowed: map[string]bool{},
		out:     Outcome{Mode: task.Mode},
	}
	for _, t := range r.reg.Tools() {
		if _, off := tool.Unavailable(t, &env); off || !Allowed(task.Mode, t.Name()) {
			continue
		}
		info := t.Info(&env.Settings)
		r.allowed[info.Name] = true
		r.names = append(r.names, info.Name)
		r.tools = append(r.tools, protocol.ChatTool{Name: info.Name, Description: info.Description, InputSchema: info.InputSchema})
	}
	r.msgs = []protocol.ChatMessage{{Role: protocol.RoleUser, Content: brief(task, r.names)}}
	return r
}

// Allowed says whether a child in mode may use the tool name.
func Allowed(mode Mode, name string) bool {
	if mode == Inspect {
		return slices.Contains(InspectTools, name)
	}
	return name != Name
}

// loop takes turns until the child answers or a limit stops it. parentCtx
// is the parent call's; ctx adds the wall time.
func (r *run) loop(parentCtx, ctx context.Context, maxTurns int, wall time.Duration) error {
	// used is the model's own count of the conversation up to message
	// counted; the messages after it are estimated.
	window, used, counted := DefaultWindow, 0, 0
	for turn := 1; ; turn++ {
		if turn > maxTurns {
			r.out.Stopped = fmt.Sprintf("it reached the turn limit: %d model turns (the setting agentMaxTurns)", maxTurns)
			return nil
		}
		if need := used + tokens(r.msgs[counted:]); need > window {
			r.out.Stopped = fmt.Sprintf("it reached the token limit: its conversation would take about %d tokens, over the model's window of %d", need, window)
			return nil
		}
		res, err := r.parent.Host().Chat(ctx, protocol.ModelChatParams{
			RequestID: r.parent.RequestID,
			Messages:  r.msgs,
			Tools:     r.tools,
		})
		if err != nil {
			switch {
			case parentCtx.Err() != nil:
				r.out.Cancelled = true
				return nil
			case context.Cause(ctx) == errWallTime:
				r.out.Stopped = fmt.Sprintf("it reached its wall time of %s", wall)
				return nil
			case errors.Is(err, tool.ErrNoModel) && turn == 1:
				return err
			}
			r.out.Stopped = fmt.Sprintf("the model could not answer (%v)", err)
			return nil
		}
		r.out.Turns = turn
		if res.MaxInputTokens > 0 {
			window = res.MaxInputTokens
		}
		calls := numberCalls(res.ToolCalls, turn)
		r.msgs = append(r.msgs, protocol.ChatMessage{Role: protocol.RoleAssistant, Content: res.Content, ToolCalls: calls})
		if res.Content != "" {
			r.out.Final = res.Content
		}
		if res.Usage != nil && res.Usage.InputTokens+res.Usage.OutputTokens > 0 {
			used, counted = res.Usage.InputTokens+res.Usage.OutputTokens, len(r.msgs)
		}
		if len(calls) == 0 {
			if res.StopReason == protocol.StopLength {
				r.out.Stopped = "its last answer was cut off at the model's output limit"
			}
			return nil
		}
		for _, tc := range calls {
			if ctx.Err() != nil {
				break
			}
			r.msgs = append(r.msgs, protocol.ChatMessage{Role: protocol.RoleTool, ToolCallID: tc.ID, Content: r.call(ctx, tc)})
		}
		switch {
		case parentCtx.Err() != nil:
			r.out.Cancelled = true
			return nil
		case context.Cause(ctx) == errWallTime:
			r.out.Stopped = fmt.Sprintf("it reached its wall time of %s", wall)
			return nil
		}
	}
}

// call runs one tool call of the child, refusing a tool it was not given.
func (r *run) call(ctx context.Context, tc protocol.ChatToolCall) string {
	r.calls++
	c := &tool.Call{
		Name:      tc.Name,
		Args:      tc.Arguments,
		RequestID: r.parent.RequestID,
		Budget:    r.env.Settings.Budget(),
		Session:   r.session,
		Env:       r.env,
		ID:        r.parent.ChildID(r.calls),
		ParentID:  r.parent.ID,
	}
	if !r.allowed[tc.Name] {
		res := r.reg.Refuse(ctx, c, tool.Failf("%s is not one of your tools, so it did not run: as a%s sub-agent you may use only %s.",
			tc.Name, article(r.task.Mode), strings.Join(r.names, ", ")))
		return res.Content
	}
	res := r.reg.Invoke(ctx, c)
	if !res.IsError && res.Diff != "" {
		r.changes.add(res.Diff)
	}
	return res.Content
}

func article(m Mode) string {
	if m == Inspect {
		return "n " + string(m)
	}
	return " " + string(m)
}

// numberCalls gives every call an id the model can be answered by.
func numberCalls(calls []protocol.ChatToolCall, turn int) []protocol.ChatToolCall {
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = fmt.Sprintf("t%d-%d", turn, i+1)
		}
		if len(calls[i].Arguments) == 0 {
			calls[i].Arguments = []byte("{}")
		}
	}
	return calls
}

// tokens estimates the tokens of messages the model has not counted.
func tokens(msgs []protocol.ChatMessage) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	return n / charsPerToken
}

// brief is the child's first message: what it is, what it may use, and
// its task.
func brief(task Task, tools []string) string {
	var b strings.Builder
	b.WriteString("You are a sub-agent: another agent hands you the task below and reads only your final message, so make that message complete on its own.\n")
	if task.Mode == Inspect {
		b.WriteString("You can only look: " + strings.Join(tools, ", ") + ". You cannot change files or run commands. ")
		b.WriteString("Answer with what you found, naming files and line numbers.\n")
	} else {
		b.WriteString("You may change files and run commands with your tools (" + strings.Join(tools, ", ") + "); every change goes through the user's approvals. ")
		b.WriteString("Read a file before you edit it. Answer with what you did and what is left.\n")
	}
	b.WriteString("When you are done, answer without calling a tool.\n\nTask:\n")
	b.WriteString(task.Prompt)
	return b.String()
}

// outcome gathers what the child read and changed.
func (r *run) outcome() Outcome {
	out := r.out
	out.Calls = r.calls
	out.Changed = r.changes.list()
	changed := map[string]bool{}
	for _, c := range out.Changed {
		changed[c.Path] = true
		changed[c.From] = true
	}
	ws := r.env.Workspace
	for _, p := range r.session.ReadPaths() {
		rel := ws.Rel(p)
		if !changed[rel] {
			out.Read = append(out.Read, rel)
		}
	}
	return out
}

// lockKey names the request a work child belongs to, on its connection.
func lockKey(c *tool.Call) string { return fmt.Sprintf("%p\x00%s", c.Env.Workspace, c.RequestID) }

// workLocks lets one work child of a request run at a time.
var workLocks = &keyedLocks{m: map[string]*keyedLock{}}

type keyedLocks struct {
	mu sync.Mutex
	m  map[string]*keyedLock
}

type keyedLock struct {
	ch   chan struct{}
	refs int
}

// acquire waits for key's lock, or for ctx to end.
func (l *keyedLocks) acquire(ctx context.Context, key string) (func(), error) {
	l.mu.Lock()
	e := l.m[key]
	if e == nil {
		e = &keyedLock{ch: make(chan struct{}, 1)}
		l.m[key] = e
	}
	e.refs++
	l.mu.Unlock()
	drop := func() {
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
	select {
	case e.ch <- struct{}{}:
		return func() { <-e.ch; drop() }, nil
	case <-ctx.Done():
		drop()
		return nil, ctx.Err()
	}
}
