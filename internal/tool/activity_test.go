package tool

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// activityHost records activity and plans, and answers approvals.
type activityHost struct {
	NoHost
	answer   protocol.Answer
	mu       sync.Mutex
	activity []protocol.Activity
	plans    [][]protocol.TodoItem
}

func (h *activityHost) Approve(context.Context, protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	return protocol.ApprovalRequestResult{Answer: h.answer}, nil
}

func (h *activityHost) Activity(_ context.Context, a protocol.Activity) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.activity = append(h.activity, a)
}

func (h *activityHost) PlanChanged(_ context.Context, items []protocol.TodoItem) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.plans = append(h.plans, items)
}

type stepArgs struct {
	Fail bool `json:"fail,omitempty"`
}

// activityRegistry has a tool that counts its Describe calls, one that
// fails, and one that asks before a step.
func activityRegistry(described *int) *Registry {
	return NewRegistry(
		New(Def[stepArgs]{Name: "step", Doc: "A step.", Risk: protocol.RiskLow,
			Describe: func(a stepArgs) string { *described++; return "Stepping" },
			Run: func(ctx context.Context, c *Call, a stepArgs) (Result, error) {
				if a.Fail {
					return Failf("it failed"), nil
				}
				return Result{Content: "stepped", Diff: "--- a/x\n+++ b/x\n"}, nil
			}}),
		New(Def[stepArgs]{Name: "guarded", Doc: "Asks first.", Risk: protocol.RiskHigh,
			Run: func(ctx context.Context, c *Call, a stepArgs) (Result, error) {
				v := c.Authorize(ctx, Step{Request: protocol.ApprovalRequestParams{Title: "Do it", Kind: protocol.ApprovalShell},
					Action: permission.Action{Tool: c.Name, Changes: true}})
				if !v.Allowed {
					return v.Refusal, nil
				}
				return Text("done"), nil
			}}),
		New(Def[stepArgs]{Name: "plan", Doc: "The plan.", Risk: protocol.RiskLow, WritesPlan: true,
			Run: func(ctx context.Context, c *Call, a stepArgs) (Result, error) { return Text("planned"), nil }}),
	)
}

func activityEnv(t *testing.T, h Host, shows bool) *Env {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Workspace: ws, Host: h, Capabilities: protocol.ClientCapabilities{Todo: shows}, Results: NewResults()}
}

func TestActivityIsReportedWithItsStatus(t *testing.T) {
	described := 0
	reg := activityRegistry(&described)
	tests := []struct {
		name   string
		tool   string
		args   string
		answer protocol.Answer
		mode   protocol.Mode
		want   protocol.ActivityStatus
	}{
		{"ok", "step", `{}`, "", "", protocol.ActivityOK},
		{"error", "step", `{"fail":true}`, "", "", protocol.ActivityError},
		{"unknown tool", "nope", `{}`, "", "", protocol.ActivityError},
		{"user said no", "guarded", `{}`, protocol.AnswerNo, "", protocol.ActivityRefused},
		{"user skipped", "guarded", `{}`, protocol.AnswerSkip, "", protocol.ActivityRefused},
		{"user said yes", "guarded", `{}`, protocol.AnswerYes, "", protocol.ActivityOK},
		{"plan mode", "guarded", `{}`, protocol.AnswerYes, protocol.ModePlan, protocol.ActivityRefused},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &activityHost{answer: tt.answer}
			env := activityEnv(t, h, true)
			env.Settings.Mode = tt.mode
			id := fmt.Sprint(i)
			reg.Invoke(context.Background(), &Call{Name: tt.tool, Args: []byte(tt.args), RequestID: "r", Session: NewSession(), Env: env, ID: id, ParentID: "p"})
			if len(h.activity) != 2 {
				t.Fatalf("activity: %+v", h.activity)
			}
			start, end := h.activity[0], h.activity[1]
			if start.Status != protocol.ActivityRunning || start.CallID != id || start.ParentCallID != "p" || start.RequestID != "r" || start.Tool != tt.tool {
				t.Errorf("start: %+v", start)
			}
			if end.Status != tt.want || end.CallID != id {
				t.Errorf("end: %+v, want status %s", end, tt.want)
			}
		})
	}
}

// Where the client shows no activity, nothing is sent and Describe (a
// decode of the arguments) is never run; a call without an id gets one.
func TestActivityCostsNothingUnshown(t *testing.T) {
	described := 0
	reg := activityRegistry(&described)
	h := &activityHost{}
	env := activityEnv(t, h, false)
	c := &Call{Name: "step", Args: []byte(`{}`), Session: NewSession(), Env: env}
	reg.Invoke(context.Background(), c)
	if described != 0 || len(h.activity) != 0 || len(h.plans) != 0 {
		t.Errorf("unshown: %d describes, activity %+v, plans %+v", described, h.activity, h.plans)
	}
	if !strings.HasPrefix(c.ID, "call-") || c.Registry != reg {
		t.Errorf("call id %q, registry %p", c.ID, c.Registry)
	}
	if _, kept := env.Results.Get(c.ID); kept {
		t.Error("a result was kept for a client that cannot ask for it")
	}
	env.Capabilities.Todo = true
	c = &Call{Name: "step", Args: []byte(`{}`), Session: NewSession(), Env: env}
	reg.Invoke(context.Background(), c)
	if described != 1 || h.activity[0].Title != "Stepping" {
		t.Errorf("shown: %d describes, activity %+v", described, h.activity)
	}
	if kept, ok := env.Results.Get(c.ID); !ok || kept.Content != "stepped" || kept.Diff == "" || kept.Title != "Stepping" {
		t.Errorf("kept: %+v", kept)
	}
	// A preview is no activity.
	reg.Invoke(context.Background(), &Call{Name: "step", Args: []byte(`{}`), Session: NewSession(), Env: env, Prepare: true})
	if len(h.activity) != 2 {
		t.Errorf("a preview was reported: %+v", h.activity)
	}
}

func TestActivityAttachesToTheStepInProgress(t *testing.T) {
	described := 0
	reg := activityRegistry(&described)
	h := &activityHost{}
	env := activityEnv(t, h, true)
	sess := NewSession()
	call := func(name, id string, s *Session) {
		reg.Invoke(context.Background(), &Call{Name: name, Args: []byte(`{}`), Session: s, Env: env, ID: id, RequestID: "r"})
	}
	call("step", "before", sess) // no plan: nothing to attach to
	if len(h.plans) != 0 {
		t.Fatalf("a plan was sent without one: %+v", h.plans)
	}
	sess.PublishPlan(context.Background(), h, []protocol.TodoItem{{Text: "one", Status: "done"}, {Text: "two", Status: "in_progress"}})
	call("step", "a", sess)
	call("plan", "p", sess) // the plan's own call is not a step's activity
	call("step", "b", NewChildSession(sess))
	plan := sess.Plan()
	if len(plan[0].Activity) != 0 || len(plan[1].Activity) != 2 || plan[1].Activity[0].CallID != "a" || plan[1].Activity[1].CallID != "b" {
		t.Fatalf("plan: %+v", plan)
	}
	for _, a := range plan[1].Activity {
		if a.Status != protocol.ActivityOK {
			t.Errorf("not updated at its end: %+v", a)
		}
	}
	last := h.plans[len(h.plans)-1]
	if len(last[1].Activity) != 2 || last[1].Activity[1].Status != protocol.ActivityOK {
		t.Errorf("the last plan sent is not the latest: %+v", last)
	}
	// A rewritten plan keeps a step's activity by its text.
	sess.PublishPlan(context.Background(), h, []protocol.TodoItem{{Text: "two", Status: "done"}, {Text: "three", Status: "in_progress"}})
	if plan := sess.Plan(); len(plan[0].Activity) != 2 || len(plan[1].Activity) != 0 {
		t.Errorf("after the rewrite: %+v", plan)
	}
}

func TestStepActivityIsBounded(t *testing.T) {
	s := NewSession()
	s.SetPlan([]protocol.TodoItem{{Text: "x", Status: "in_progress"}})
	s.track(protocol.Activity{CallID: "held", Status: protocol.ActivityRunning})
	for i := range maxStepActivity + 10 {
		id := fmt.Sprint(i)
		s.track(protocol.Activity{CallID: id, Status: protocol.ActivityRunning})
		s.track(protocol.Activity{CallID: id, Status: protocol.ActivityOK})
	}
	acts := s.Plan()[0].Activity
	if len(acts) != maxStepActivity || acts[0].CallID != "held" || acts[len(acts)-1].CallID != fmt.Sprint(maxStepActivity+9) {
		t.Errorf("%d activities, first %+v, last %+v", len(acts), acts[0], acts[len(acts)-1])
	}
}

func TestResultsKeepTheNewest(t *testing.T) {
	r := NewResults()
	for i := range MaxKeptResults + 5 {
		r.Keep(protocol.ToolResultResult{CallID: fmt.Sprint(i), Content: "x"})
	}
	if _, ok := r.Get("0"); ok {
		t.Error("the oldest result was kept past the bound")
	}
	if got, ok := r.Get(fmt.Sprint(MaxKeptResults + 4)); !ok || got.Content != "x" {
		t.Error("the newest result is missing")
	}
	big := strings.Repeat("y", maxKeptResultBytes/2+1)
	r.Keep(protocol.ToolResultResult{CallID: "big1", Content: big})
	r.Keep(protocol.ToolResultResult{CallID: "big2", Content: big})
	if _, ok := r.Get("big1"); ok {
		t.Error("results beyond the size bound were kept")
	}
	if _, ok := r.Get("big2"); !ok {
		t.Error("the newest result was dropped")
	}
	var none *Results
	none.Keep(protocol.ToolResultResult{CallID: "x"})
	if _, ok := none.Get("x"); ok {
		t.Error("the nil store kept a result")
	}
}
