package tool

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/protocol"
)

// callSeq numbers the calls that arrive without an id (headless runs).
var callSeq atomic.Uint64

func newCallID() string { return "call-" + strconv.FormatUint(callSeq.Add(1), 10) }

// ChildID names the n-th call a call makes (a sub-agent's, a program's).
func (c *Call) ChildID(n int) string { return c.ID + "." + strconv.Itoa(n) }

// shows says whether the client shows activity: only then is a call's
// title worth the decode of its arguments that Describe costs.
func (e *Env) shows() bool { return e != nil && e.Capabilities.Todo }

// callActivity is one call's report to the user: it starts running, then
// ends ok, in error, or refused.
type callActivity struct {
	c     *Call
	a     protocol.Activity
	start time.Time
	plan  bool // attached to the plan's step in progress
}

// begin reports the call as running, where the client shows activity, and
// attaches it to the step of the plan in progress.
func (r *Registry) begin(ctx context.Context, c *Call) *callActivity {
	if c.ID == "" {
		c.ID = newCallID()
	}
	ca := &callActivity{c: c, start: time.Now()}
	if !c.Env.shows() {
		return ca
	}
	title := c.Name
	t, known := r.byName[c.Name]
	if known {
		title = t.Describe(c.Args)
	}
	ca.a = protocol.Activity{
		RequestID:    c.RequestID,
		CallID:       c.ID,
		ParentCallID: c.ParentID,
		Tool:         c.Name,
		Title:        title,
		Status:       protocol.ActivityRunning,
	}
	if c.ParentID != "" {
		// A call made by a program or a sub-agent is seen nowhere else:
		// the report carries its arguments, and later its result.
		ca.a.Input = keepHistory(string(c.Args), MaxHistoryBytes)
	}
	ca.plan = !known || !writesPlan(t)
	ca.report(ctx)
	return ca
}

// MaxHistoryBytes bounds the arguments and the result an activity report
// carries for a call made by a program or a sub-agent (its diff may take
// four times as much).
const MaxHistoryBytes = 16 << 10

// keepHistory cuts s to max bytes, saying so.
func keepHistory(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return CutUTF8(s[:max]) + fmt.Sprintf("\n… [cut: %d of %d bytes kept in the history]", max, len(s))
}

// end reports how the call ended and keeps its result for the client.
func (ca *callActivity) end(ctx context.Context, res Result) {
	c := ca.c
	if !c.Env.shows() {
		return
	}
	ca.a.Status = StatusOf(c, res)
	ca.a.DurationMs = max(time.Since(ca.start).Milliseconds(), 0)
	if c.ParentID != "" {
		ca.a.Output, ca.a.Diff = keepHistory(res.Content, MaxHistoryBytes), keepHistory(res.Diff, 4*MaxHistoryBytes)
	}
	ca.report(ctx)
	c.Env.Results.Keep(protocol.ToolResultResult{
		CallID: c.ID, Tool: c.Name, Title: ca.a.Title, Content: res.Content, IsError: res.IsError, Diff: res.Diff,
	})
}

// report sends the activity and, when the plan holds it, the plan. The
// plan is sent under a lock, so that two calls ending together cannot
// deliver their plans out of order.
func (ca *callActivity) report(ctx context.Context) {
	c := ca.c
	h := c.Host()
	h.Activity(ctx, ca.a)
	if !ca.plan || c.Session == nil {
		return
	}
	root := c.Session.root()
	root.planSend.Lock()
	defer root.planSend.Unlock()
	if items, changed := root.track(ca.a); changed {
		h.PlanChanged(ctx, items)
	}
}

// StatusOf is how a finished call is reported: refused when the
// permission mode or the user said no to it, else error or ok.
func StatusOf(c *Call, res Result) protocol.ActivityStatus {
	switch {
	case res.IsError && c.refused:
		return protocol.ActivityRefused
	case res.IsError:
		return protocol.ActivityError
	}
	return protocol.ActivityOK
}

// Refuse answers a call that may not run at all here (a tool a sub-agent
// was not given), reporting it as refused like any other call.
func (r *Registry) Refuse(ctx context.Context, c *Call, res Result) Result {
	res.IsError = true
	c.refused = true
	ca := r.begin(ctx, c)
	ca.end(ctx, res)
	return res
}

// maxStepActivity bounds the calls one step of the plan lists; the oldest
// finished ones make room.
const maxStepActivity = 200

// track attaches a starting call to the step in progress, or updates the
// step that holds an ending one. It says whether the plan changed, and
// returns a copy to send.
func (s *Session) track(a protocol.Activity) ([]protocol.TodoItem, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.plan {
		acts := s.plan[i].Activity
		for j := range acts {
			if acts[j].CallID == a.CallID && acts[j].RequestID == a.RequestID {
				acts[j] = a
				return copyPlan(s.plan), true
			}
		}
	}
	if a.Status != protocol.ActivityRunning {
		return nil, false
	}
	for i := range s.plan {
		if s.plan[i].Status == statusInProgress {
			it := &s.plan[i]
			if len(it.Activity) >= maxStepActivity {
				it.Activity = dropOldestFinished(it.Activity)
			}
			it.Activity = append(it.Activity, a)
			return copyPlan(s.plan), true
		}
	}
	return nil, false
}

// statusInProgress is the todo status of the step being worked on.
const statusInProgress = "in_progress"

func dropOldestFinished(acts []protocol.Activity) []protocol.Activity {
	for i, a := range acts {
		if a.Status != protocol.ActivityRunning {
			return append(acts[:i:i], acts[i+1:]...)
		}
	}
	return acts[1:]
}

// carryActivity gives the steps of a new plan the activity of the old
// steps with the same text.
func carryActivity(old, items []protocol.TodoItem) []protocol.TodoItem {
	byText := make(map[string][]protocol.Activity, len(old))
	for _, it := range old {
		if len(it.Activity) > 0 {
			if _, dup := byText[it.Text]; !dup {
				byText[it.Text] = it.Activity
			}
		}
	}
	out := make([]protocol.TodoItem, len(items))
	for i, it := range items {
		out[i] = it
		if acts, ok := byText[it.Text]; ok && len(it.Activity) == 0 {
			out[i].Activity = acts
			delete(byText, it.Text)
		}
	}
	return copyPlan(out)
}

func copyPlan(items []protocol.TodoItem) []protocol.TodoItem {
	out := append([]protocol.TodoItem(nil), items...)
	for i := range out {
		if out[i].Activity != nil {
			out[i].Activity = append([]protocol.Activity(nil), out[i].Activity...)
		}
	}
	return out
}

// Results keeps the latest calls' results, by call id, so that a client
// can show one again when the user asks. The nil *Results keeps nothing.
type Results struct {
	mu    sync.Mutex
	order []string
	m     map[string]protocol.ToolResultResult
	bytes int
}

// Bounds on what Results keeps: the newest calls, up to a total size.
const (
	MaxKeptResults     = 200
	maxKeptResultBytes = 16 << 20
)

// NewResults makes an empty store of results.
func NewResults() *Results { return &Results{m: map[string]protocol.ToolResultResult{}} }

func resultSize(r protocol.ToolResultResult) int { return len(r.Content) + len(r.Diff) + len(r.Title) }

// Keep stores a call's result, forgetting the oldest beyond the bounds.
func (r *Results) Keep(res protocol.ToolResultResult) {
	if r == nil || res.CallID == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.m[res.CallID]; ok {
		r.bytes -= resultSize(old)
		for i, id := range r.order {
			if id == res.CallID {
				r.order = append(r.order[:i], r.order[i+1:]...)
				break
			}
		}
	}
	r.m[res.CallID] = res
	r.order = append(r.order, res.CallID)
	r.bytes += resultSize(res)
	for len(r.order) > 1 && (len(r.order) > MaxKeptResults || r.bytes > maxKeptResultBytes) {
		r.bytes -= resultSize(r.m[r.order[0]])
		delete(r.m, r.order[0])
		r.order = r.order[1:]
	}
}

// Get returns a kept result.
func (r *Results) Get(callID string) (protocol.ToolResultResult, bool) {
	if r == nil {
		return protocol.ToolResultResult{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.m[callID]
	return res, ok
}

// PublishPlan replaces the plan and shows it through h, in order with the
// plans the calls' activity sends. It returns the plan as shown, with the
// activity its steps kept.
func (s *Session) PublishPlan(ctx context.Context, h Host, items []protocol.TodoItem) []protocol.TodoItem {
	s.planSend.Lock()
	defer s.planSend.Unlock()
	s.SetPlan(items)
	plan := s.Plan()
	h.PlanChanged(ctx, plan)
	return plan
}
