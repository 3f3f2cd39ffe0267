// Package compose runs a compose program: a small program in a subset of
// JavaScript that calls Tether's tools as tools.tether.<name>(args) and
// returns only what the model needs.
//
// A program is validated before anything runs (Validate: goja's parser,
// then a walk over the syntax tree that refuses every node kind the subset
// does not name), then executed in a fresh, confined QuickJS engine
// (modernc.org/quickjs, pure Go) with a memory limit, a deadline and no
// host objects but the ones the prelude builds. Each tool call is an
// ordinary call of the registry, with the compose call's session, request
// and environment, so every permission rule, guardrail and approval
// applies to it as if the model had made it; the calls run concurrently,
// a bounded number at a time.
package compose

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/quickjs"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

//go:embed prelude.js
var prelude string

// ErrCancelled is the outcome of a program stopped by its caller.
var ErrCancelled = errors.New("the program was cancelled")

// errStuck is a program waiting on something that will never finish.
var errStuck = errors.New("the program is waiting for something that will never finish (only tool calls finish on their own here)")

// Child is one tool call a program made, as the history keeps it.
type Child struct {
	// N counts the program's calls from 1.
	N      int
	CallID string
	Tool   string
	Args   json.RawMessage
	// Title says in a few words what the call does ("Reading main.go").
	Title  string
	Status protocol.ActivityStatus
	Result tool.Result
	// Waited is set when the call waited for a free slot (the concurrency limit).
	Waited   bool
	Duration time.Duration
}

// Value is what a program returned.
type Value struct {
	// Kind is "none" (nothing returned), "text" (a string) or "json".
	Kind string
	Text string
}

// Outcome is everything a run produced: the program's value or its
// error, its logs, and the history of its tool calls.
type Outcome struct {
	Value Value
	// Err is nil on success, else a *ValidationError, a *LimitError, a
	// *ProgramError, ErrCancelled or a fault of the engine.
	Err         error
	Logs        []string
	LogsDropped int
	Children    []*Child
	// Waited counts the calls that waited for a free slot.
	Waited int
}

// Runner runs programs for one compose call.
type Runner struct {
	Registry *tool.Registry
	// Parent is the compose call: its session, request, budget and
	// environment are its children's.
	Parent  *tool.Call
	Limits  Limits
	Catalog *Catalog
}

// Run validates src and runs it to the end: the program returns, throws,
// hits a limit, or ctx ends. It never leaves a tool call running.
func (r *Runner) Run(ctx context.Context, src string) *Outcome {
	if len(src) > r.Limits.SourceBytes {
		return &Outcome{Err: &LimitError{Limit: LimitSource, Detail: fmt.Sprintf("the program is %s; at most %s is accepted. Do less in one program, or pass data through tool calls instead of writing it into the source",
			tool.HumanBytes(int64(len(src))), tool.HumanBytes(int64(r.Limits.SourceBytes)))}}
	}
	checked, err := Validate(src)
	if err != nil {
		return &Outcome{Err: err}
	}
	return r.Execute(ctx, checked)
}

// Execute runs a validated program.
func (r *Runner) Execute(ctx context.Context, p *Checked) *Outcome {
	r.Limits = r.Limits.withDefaults()
	rn := &run{
		Runner: r,
		out:    &Outcome{},
		caps:   map[int]*quickjs.PromiseCapability{},
		wake:   make(chan struct{}, 1),
		sem:    make(chan struct{}, r.Limits.Concurrency),
	}
	var cancel context.CancelFunc
	rn.ctx, cancel = context.WithTimeoutCause(ctx, r.Limits.Timeout, errTimeLimit)
	defer cancel()
	rn.exec(p, cancel)
	return rn.out
}

var errTimeLimit = errors.New("compose time limit")

type completion struct {
	n   int
	res tool.Result
}

// run is one execution. Everything but the child goroutines runs on the
// goroutine that called Execute, which is the only one that touches the
// engine.
type run struct {
	*Runner
	ctx context.Context
	vm  *quickjs.VM
	out *Outcome

	mu       sync.Mutex // guards the children's fields their goroutines set
	caps     map[int]*quickjs.PromiseCapability
	finished []completion  // calls ended, not yet handed to the engine (under mu)
	wake     chan struct{} // a call ended
	sem      chan struct{}
	wg       sync.WaitGroup
	inflight int

	result  *Value
	failure error
	latched error // a limit or cancellation: it wins over whatever the program did next

	lineOffset int
	checked    *Checked
	atoms      map[string]quickjs.Atom // the envelope's property names
}

func (rn *run) exec(p *Checked, cancel context.CancelFunc) {
	rn.checked = p
	vm, err := quickjs.NewVM()
	if err != nil {
		rn.out.Err = fmt.Errorf("starting the interpreter: %w", err)
		return
	}
	rn.vm = vm
	stop := context.AfterFunc(rn.ctx, vm.Interrupt)
	defer func() {
		stop()
		cancel()
		rn.wg.Wait()
		rn.collect()
		for _, pc := range rn.caps {
			pc.Resolve.Free()
			pc.Reject.Free()
		}
		vm.Close()
	}()
	vm.SetMemoryLimit(uintptr(rn.Limits.MemoryBytes))
	if err := vm.SetEvalTimeout(rn.Limits.Timeout); err != nil {
		rn.out.Err = fmt.Errorf("setting the interpreter's timeout: %w", err)
		return
	}
	if err := rn.register(); err != nil {
		rn.out.Err = fmt.Errorf("preparing the interpreter: %w", err)
		return
	}
	bc, err := preludeBytecode()
	if err != nil {
		rn.out.Err = err
		return
	}
	v, err := vm.EvalBytecodeValue(bc)
	if err != nil {
		rn.out.Err = fmt.Errorf("running the prelude: %w", err)
		return
	}
	v.Free()
	// The step count lives in the function the program runs in, declared
	// on the wrapper's first line so the program's lines do not move.
	head := "__tether_run(" + strings.Replace(wrapHead, `"use strict";`, fmt.Sprintf(`"use strict";let %s=%d;`, stepsVar, rn.Limits.MaxSteps), 1)
	rn.lineOffset = strings.Count(head, "\n")
	if v, err := vm.EvalValue(head+p.body+wrapTail+");\n", quickjs.EvalGlobal); err != nil {
		rn.fault(err)
	} else {
		v.Free()
	}
	rn.loop()
	rn.out.Err = rn.verdict()
	if rn.out.Err == nil && rn.result != nil {
		rn.out.Value = *rn.result
	}
}

// loop runs the engine's jobs and feeds it finished tool calls until the
// program settles, a limit is hit, or the run's context ends.
func (rn *run) loop() {
	for rn.result == nil && rn.failure == nil && rn.latched == nil {
		if _, err := rn.vm.ExecutePendingJobs(); err != nil {
			rn.fault(err)
			return
		}
		if rn.result != nil || rn.failure != nil || rn.latched != nil {
			return
		}
		if rn.inflight == 0 {
			rn.failure = errStuck
			return
		}
		rn.mu.Lock()
		ready := rn.finished
		rn.finished = nil
		rn.mu.Unlock()
		if len(ready) == 0 {
			select {
			case <-rn.wake:
			case <-rn.ctx.Done():
				rn.latchContext()
				return
			}
			continue
		}
		for _, c := range ready {
			rn.inflight--
			rn.resolve(c)
		}
	}
}

// verdict is the run's outcome: a limit or cancellation first, whatever
// the program did after it; then the program's own error.
func (rn *run) verdict() error {
	if rn.latched != nil {
		return rn.latched
	}
	if rn.ctx.Err() != nil && rn.result == nil {
		rn.latchContext()
		return rn.latched
	}
	if rn.failure != nil {
		return rn.failure
	}
	if rn.result == nil {
		return errStuck
	}
	return nil
}

func (rn *run) latch(err error) {
	if rn.latched == nil {
		rn.latched = err
	}
}

// latchContext latches why the run's context ended: its deadline (the
// time limit) or the caller's cancellation.
func (rn *run) latchContext() {
	if errors.Is(context.Cause(rn.ctx), errTimeLimit) {
		rn.latch(&LimitError{Limit: LimitTime, Detail: fmt.Sprintf("the program ran for %s, the most it may (setting composeTimeout). Calls already made have had their effect; check the history below before running the rest",
			tool.HumanDuration(rn.Limits.Timeout))})
		return
	}
	rn.latch(ErrCancelled)
}

// fault classifies an exception that reached the host: the engine's own
// limits, an interrupt (the deadline or a cancellation), or a program
// error.
func (rn *run) fault(err error) {
	if rn.ctx.Err() != nil {
		rn.latchContext()
		return
	}
	if rn.latched != nil {
		return
	}
	var qe *quickjs.Error
	if !errors.As(err, &qe) {
		rn.failure = err
		return
	}
	rn.classify(qe.Name, qe.Message, qe.Stack)
}

func (rn *run) classify(name, message, stack string) {
	if name == "InternalError" || name == "" && message == "" {
		if lim := rn.engineLimit(message); lim != nil {
			rn.latch(lim)
			return
		}
	}
	pe := &ProgramError{Name: name, Message: message}
	pe.Line, pe.Column, _ = rn.position(stack)
	rn.failure = pe
}

// engineLimit names the limit behind an InternalError of the engine, or
// nil when it is not one.
func (rn *run) engineLimit(message string) error {
	switch message {
	case "", "out of memory", "string too long", "invalid array length":
		return &LimitError{Limit: LimitMemory, Detail: fmt.Sprintf("the program used the %s it may (setting composeMemoryBytes). Keep less at once: select the fields you need from each result instead of keeping whole outputs",
			tool.HumanBytes(int64(rn.Limits.MemoryBytes)))}
	case "stack overflow":
		return &LimitError{Limit: LimitStack, Detail: "the program's calls nested too deeply (endless recursion?); use a loop"}
	case "steps":
		return &LimitError{Limit: LimitSteps, Detail: fmt.Sprintf("the program took %d steps (loop iterations and function calls), the most one program may. If a loop waits for something that never changes, bound it; otherwise do less in one program", rn.Limits.MaxSteps)}
	case "interrupted":
		if rn.ctx.Err() != nil {
			rn.latchContext()
			return rn.latched
		}
		return &LimitError{Limit: LimitTime, Detail: fmt.Sprintf("the program ran for %s, the most it may (setting composeTimeout)", tool.HumanDuration(rn.Limits.Timeout))}
	}
	return nil
}

// preludeLine is the line the prelude starts on in its own compiled
// source: past any program's last line (a program has at most its source
// limit in lines), so a stack frame's line tells the two apart.
const preludeLine = 1 << 17

// The prelude is compiled once per process: loading its bytecode into a
// fresh engine costs a fraction of parsing it each time.
var preludeCode struct {
	once sync.Once
	bc   []byte
	err  error
}

func preludeBytecode() ([]byte, error) {
	preludeCode.once.Do(func() {
		vm, err := quickjs.NewVM()
		if err != nil {
			preludeCode.err = fmt.Errorf("starting the interpreter: %w", err)
			return
		}
		defer vm.Close()
		preludeCode.bc, err = vm.Compile(strings.Repeat("\n", preludeLine-1)+prelude, quickjs.EvalGlobal)
		if err != nil {
			preludeCode.err = fmt.Errorf("compiling the prelude: %w", err)
		}
	})
	return preludeCode.bc, preludeCode.err
}

// stackFrame is one line of an engine stack trace: "    at f (<eval>:3:17)".
var stackFrame = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*at (\S+) \(<eval>:(\d+):(\d+)\)`) })

// position is where in the program as written an exception was thrown:
// the first frame of the stack that is in the program, not the prelude
// nor the wrapper around it. It also gives the stack with only the
// program's frames, in its own coordinates: "    at f (line 3:17)".
func (rn *run) position(stack string) (line, col int, program string) {
	var b strings.Builder
	for _, frame := range strings.Split(stack, "\n") {
		m := stackFrame().FindStringSubmatch(frame)
		if m == nil {
			continue
		}
		l, _ := strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[3])
		if l <= rn.lineOffset || l >= preludeLine {
			continue
		}
		l, c = rn.checked.Position(l-rn.lineOffset, c)
		if line == 0 {
			line, col = l, c
		}
		name := m[1]
		if name == "<anonymous>" {
			name = "<program>"
		}
		fmt.Fprintf(&b, "    at %s (line %d:%d)\n", name, l, c)
	}
	return line, col, b.String()
}

// place answers the prelude's question about a caught error: where in the
// program it happened, as JSON {line, column, stack}.
func (rn *run) place(stack string) string {
	line, col, program := rn.position(stack)
	out, _ := json.Marshal(struct {
		Line   int    `json:"line"`
		Column int    `json:"column"`
		Stack  string `json:"stack"`
	}{line, col, program})
	return string(out)
}

// register gives the prelude its host functions.
func (rn *run) register() error {
	vm := rn.vm
	if err := vm.RegisterFunc("__tether_call", rn.call, false); err != nil {
		return err
	}
	if err := vm.RegisterHostFunc("__tether_search", rn.search); err != nil {
		return err
	}
	if err := vm.RegisterFunc("__tether_log", rn.log, false); err != nil {
		return err
	}
	if err := vm.RegisterFunc("__tether_done", rn.finish, false); err != nil {
		return err
	}
	if err := vm.RegisterFunc("__tether_limit", rn.limit, false); err != nil {
		return err
	}
	if err := vm.RegisterFunc("__tether_place", rn.place, false); err != nil {
		return err
	}
	names, err := json.Marshal(rn.Catalog.Names())
	if err != nil {
		return err
	}
	return vm.RegisterFunc("__tether_names", func() string { return string(names) }, false)
}

// limit is the guard's question: should this caught error be thrown on?
// kind is the message of an InternalError of the engine, else empty.
func (rn *run) limit(kind string) bool {
	if kind != "" {
		if lim := rn.engineLimit(kind); lim != nil {
			rn.latch(lim)
		}
	}
	if rn.latched == nil && rn.ctx.Err() != nil {
		rn.latchContext()
	}
	if rn.latched != nil {
		rn.vm.Interrupt()
		return true
	}
	return false
}

func (rn *run) finish(ok bool, kind, text string) {
	if rn.result != nil || rn.failure != nil {
		return
	}
	if ok {
		rn.result = &Value{Kind: kind, Text: text}
		return
	}
	var d struct {
		Name, Message, Stack string
		Line, Column         int
	}
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		d.Message = text
	}
	if d.Line > 0 { // annotated by the prelude: already the program's place
		rn.failure = &ProgramError{Name: d.Name, Message: d.Message, Line: d.Line, Column: d.Column}
		return
	}
	rn.classify(d.Name, d.Message, d.Stack)
}

func (rn *run) log(line string) {
	lines := strings.Split(strings.TrimRight(line, "\n"), "\n")
	for _, l := range lines {
		if len(rn.out.Logs) >= rn.Limits.LogLines {
			rn.out.LogsDropped++
			continue
		}
		if len(l) > MaxLogLineBytes {
			l = tool.CutUTF8(l[:MaxLogLineBytes]) + fmt.Sprintf(" … [line cut at %d of %d bytes]", MaxLogLineBytes, len(l))
		}
		rn.out.Logs = append(rn.out.Logs, l)
	}
}

func (rn *run) search(args []any) (any, error) {
	var a SearchArgs
	if len(args) == 1 {
		if s, ok := args[0].(string); ok {
			dec := json.NewDecoder(strings.NewReader(s))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&a); err != nil {
				return nil, fmt.Errorf("search takes {query, namespace?, limit?, offset?}: %v", err)
			}
		}
	}
	res, err := rn.Catalog.Search(a)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	return string(b), err
}

// call starts one tool call and returns the promise of its result. The
// call runs on its own goroutine, after a free slot; its result comes back
// through rn.done to the engine's goroutine.
func (rn *run) call(name, args string) quickjs.Value {
	if rn.latched != nil {
		rn.vm.Interrupt()
		return quickjs.UndefinedValue
	}
	if len(rn.out.Children) >= rn.MaxCalls() {
		rn.latch(&LimitError{Limit: LimitCalls, Detail: fmt.Sprintf("the program made %d tool calls, the most it may (setting composeMaxCalls); call %s was not made",
			rn.MaxCalls(), name)})
		rn.vm.Interrupt()
		return quickjs.UndefinedValue
	}
	pc, err := rn.vm.NewPromiseCapability()
	if err != nil {
		rn.fault(err)
		rn.vm.Interrupt()
		return quickjs.UndefinedValue
	}
	n := len(rn.out.Children) + 1
	ch := &Child{N: n, CallID: fmt.Sprintf("%s.%d", rn.parentID(), n), Tool: name, Args: json.RawMessage(args), Status: protocol.ActivityRunning}
	rn.out.Children = append(rn.out.Children, ch)
	rn.caps[n] = pc
	rn.inflight++
	rn.wg.Add(1)
	go rn.child(ch)
	return pc.Promise
}

// MaxCalls is the number of tool calls a program may make.
func (r *Runner) MaxCalls() int { return r.Limits.MaxCalls }

func (rn *run) parentID() string {
	if rn.Parent.ID != "" {
		return rn.Parent.ID
	}
	return "compose"
}

// child runs one tool call: an ordinary call of the registry with the
// compose call's session, request, budget and environment. Only the host
// is wrapped, to see what the user answered.
func (rn *run) child(ch *Child) {
	defer rn.wg.Done()
	// The title is worked out here, off the engine's goroutine: it decodes
	// the arguments once more.
	if t, ok := rn.Registry.Lookup(ch.Tool); ok {
		title := t.Describe(ch.Args)
		rn.mu.Lock()
		ch.Title = title
		rn.mu.Unlock()
	}
	select {
	case rn.sem <- struct{}{}:
	default:
		rn.mu.Lock()
		ch.Waited = true
		rn.mu.Unlock()
		select {
		case rn.sem <- struct{}{}:
		case <-rn.ctx.Done():
			rn.end(ch, tool.Cancelled(ch.Tool), 0, false, true)
			return
		}
	}
	defer func() { <-rn.sem }()
	if rn.ctx.Err() != nil {
		rn.end(ch, tool.Cancelled(ch.Tool), 0, false, true)
		return
	}
	parent := rn.Parent
	if inv, ok := parent.Host().(ToolInvoker); ok && parent.Env.Capabilities.InvokeTools {
		rn.viaClient(ch, inv)
		return
	}
	// The registry reports the call's activity, with ParentID naming the
	// program, as it does every call.
	c := &tool.Call{
		ID:        ch.CallID,
		ParentID:  rn.parentID(),
		Name:      ch.Tool,
		Args:      ch.Args,
		RequestID: parent.RequestID,
		Budget:    parent.Budget,
		Session:   parent.Session,
		Env:       parent.Env,
	}
	start := time.Now()
	res := rn.Registry.Invoke(rn.ctx, c)
	rn.end(ch, res, time.Since(start), tool.StatusOf(c, res) == protocol.ActivityRefused, false)
}

// ToolInvoker is a host whose client can run a program's tool calls
// itself (the editor, which then shows them in its chat); each comes back
// as an ordinary call of the same request.
type ToolInvoker interface {
	InvokeTool(ctx context.Context, p protocol.ToolInvokeParams) (protocol.ToolCallResult, error)
}

// viaClient runs a call through the client.
func (rn *run) viaClient(ch *Child, inv ToolInvoker) {
	rn.activity(ch, protocol.ActivityRunning, 0)
	start := time.Now()
	r, err := inv.InvokeTool(rn.ctx, protocol.ToolInvokeParams{
		RequestID: rn.Parent.RequestID, ParentCallID: rn.Parent.ID, CallID: ch.CallID, Name: ch.Tool, Arguments: ch.Args,
	})
	res := tool.Result{Content: r.Content, IsError: r.IsError, Diff: r.Diff}
	switch {
	case err != nil && rn.ctx.Err() != nil:
		res = tool.Cancelled(ch.Tool)
	case err != nil:
		res = tool.Failf("the editor could not run %s: %v", ch.Tool, err)
	}
	rn.end(ch, res, time.Since(start), false, true)
}

// end records a finished call and hands it to the engine; report says the
// call's end is reported here (the registry reports the calls it runs).
func (rn *run) end(ch *Child, res tool.Result, d time.Duration, refused, report bool) {
	status := protocol.ActivityOK
	switch {
	case refused:
		status = protocol.ActivityRefused
	case res.IsError:
		status = protocol.ActivityError
	}
	rn.mu.Lock()
	ch.Result, ch.Status, ch.Duration = res, status, d
	rn.mu.Unlock()
	if report {
		rn.activity(ch, status, d)
	}
	rn.mu.Lock()
	rn.finished = append(rn.finished, completion{n: ch.N, res: res})
	rn.mu.Unlock()
	select {
	case rn.wake <- struct{}{}:
	default:
	}
}

func (rn *run) activity(ch *Child, status protocol.ActivityStatus, d time.Duration) {
	a := protocol.Activity{
		RequestID:    rn.Parent.RequestID,
		CallID:       ch.CallID,
		ParentCallID: rn.Parent.ID,
		Tool:         ch.Tool,
		Title:        ch.Title,
		Status:       status,
		DurationMs:   d.Milliseconds(),
		Input:        keep(string(ch.Args), tool.MaxHistoryBytes),
	}
	if status != protocol.ActivityRunning {
		rn.mu.Lock()
		a.Output, a.Diff = keep(ch.Result.Content, tool.MaxHistoryBytes), keep(ch.Result.Diff, 4*tool.MaxHistoryBytes)
		rn.mu.Unlock()
	}
	rn.Parent.Host().Activity(rn.ctx, a)
}

// keep cuts s to max bytes for the history, saying so.
func keep(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return tool.CutUTF8(s[:max]) + fmt.Sprintf("\n… [cut: %d of %d bytes kept in the history]", max, len(s))
}

// resolve settles a call's promise with its result envelope.
func (rn *run) resolve(c completion) {
	pc := rn.caps[c.n]
	delete(rn.caps, c.n)
	if pc == nil {
		return
	}
	defer func() {
		pc.Resolve.Free()
		pc.Reject.Free()
	}()
	ch := rn.out.Children[c.n-1]
	obj, err := rn.envelopeValue(envelope(ch, c.res))
	if err != nil {
		rn.fault(err)
		return
	}
	defer obj.Free()
	if _, err := pc.Resolve.Call(quickjs.UndefinedValue, obj); err != nil {
		rn.fault(err)
	}
}

// envelopeNames are the property names of a result envelope.
var envelopeNames = []string{"title", "output", "metadata", "isError", "tool", "callId", "status", "diff"}

// envelopeValue builds the envelope as an object of the engine directly:
// the output goes in as a string, with no JSON for the engine to parse.
func (rn *run) envelopeValue(e resultEnvelope) (quickjs.Value, error) {
	if rn.atoms == nil {
		rn.atoms = map[string]quickjs.Atom{}
		for _, n := range envelopeNames {
			a, err := rn.vm.NewAtom(n)
			if err != nil {
				return quickjs.Value{}, err
			}
			rn.atoms[n] = a
		}
	}
	meta, err := rn.vm.NewObjectValue()
	if err != nil {
		return quickjs.Value{}, err
	}
	defer meta.Free()
	props := []struct {
		name string
		v    any
	}{{"tool", e.Metadata.Tool}, {"callId", e.Metadata.CallID}, {"status", e.Metadata.Status}}
	if e.Metadata.Diff != "" {
		props = append(props, struct {
			name string
			v    any
		}{"diff", e.Metadata.Diff})
	}
	for _, p := range props {
		if err := meta.SetProperty(rn.atoms[p.name], p.v); err != nil {
			return quickjs.Value{}, err
		}
	}
	obj, err := rn.vm.NewObjectValue()
	if err != nil {
		return quickjs.Value{}, err
	}
	err = obj.SetProperty(rn.atoms["title"], e.Title)
	if err == nil {
		err = obj.SetProperty(rn.atoms["output"], e.Output)
	}
	if err == nil {
		err = obj.SetProperty(rn.atoms["isError"], e.IsError)
	}
	if err == nil {
		err = obj.SetPropertyValue(rn.atoms["metadata"], meta)
	}
	if err != nil {
		obj.Free()
		return quickjs.Value{}, err
	}
	return obj, nil
}

// resultEnvelope is what a program sees of a tool's result.
type resultEnvelope struct {
	Title    string   `json:"title"`
	Output   string   `json:"output"`
	Metadata metadata `json:"metadata"`
	IsError  bool     `json:"isError"`
}

type metadata struct {
	Tool   string `json:"tool"`
	CallID string `json:"callId"`
	Status string `json:"status"`
	Diff   string `json:"diff,omitempty"`
}

func envelope(ch *Child, res tool.Result) resultEnvelope {
	title := res.Title
	if title == "" {
		title = ch.Title
	}
	return resultEnvelope{
		Title:    title,
		Output:   res.Content,
		Metadata: metadata{Tool: ch.Tool, CallID: ch.CallID, Status: string(ch.Status), Diff: res.Diff},
		IsError:  res.IsError,
	}
}

// collect counts the calls that waited, once every child has ended.
func (rn *run) collect() {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, ch := range rn.out.Children {
		if ch.Waited {
			rn.out.Waited++
		}
	}
}
