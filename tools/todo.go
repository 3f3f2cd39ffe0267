package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/protocol"
)

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoDone       = "done"
)

// maxTodoItems keeps a plan a plan, not a dump.
const maxTodoItems = 50

type todoItem struct {
	Text   string `json:"text" jsonschema:"What the step does, in a short sentence."`
	Status string `json:"status" jsonschema:"pending, in_progress or done."`
}

type todoArgs struct {
	Items []todoItem `json:"items" jsonschema:"The whole plan, in order. It replaces the previous plan."`
}

// Todo is the todo tool.
var Todo = New(Def[todoArgs]{
	Name: "todo",
	Description: `Write down or update the plan for a multi-step task; the user sees it as a checklist. ` +
		`Send the whole plan every time (it replaces the previous one), each step with a status: pending, in_progress or done. ` +
		`Keep exactly one step in_progress while you work on it and mark it done as soon as it is finished. Use it for tasks of three or more steps; skip it for a single quick change. Returns the plan as text.`,
	UserDescription: "Plan the task as a checklist",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["items"].MaxItems = jsonschema.Ptr(maxTodoItems)
		item := s.Properties["items"].Items
		item.Properties["status"].Enum = []any{TodoPending, TodoInProgress, TodoDone}
		item.Properties["text"].MinLength = jsonschema.Ptr(1)
	},
	Describe: func(a todoArgs) string { return "Updating the plan" },
	Run:      runTodo,
})

func runTodo(ctx context.Context, c *Call, a todoArgs) Result {
	items := make([]protocol.TodoItem, len(a.Items))
	inProgress := 0
	for i, it := range a.Items {
		text := strings.TrimSpace(it.Text)
		if text == "" {
			return Errorf("step %d has no text: give every step a short description", i+1)
		}
		if it.Status == TodoInProgress {
			inProgress++
		}
		items[i] = protocol.TodoItem{Text: text, Status: it.Status}
	}
	if inProgress > 1 {
		return Errorf("%d steps are in_progress; keep exactly one in progress at a time (mark the others pending or done)", inProgress)
	}
	c.Session.SetPlan(items)
	if c.Env.Capabilities.Todo && c.Env.Host != nil {
		if err := c.Env.Host.Notify(ctx, protocol.MethodTodoChanged, protocol.TodoChangedParams{Items: items}); err != nil && c.Env.Log != nil {
			c.Env.Log.Warn("sending todo/changed", "err", err)
		}
	}
	return Text(FormatPlan(items))
}

// FormatPlan renders a plan as a checklist.
func FormatPlan(items []protocol.TodoItem) string {
	if len(items) == 0 {
		return "The plan is empty.\n"
	}
	done := 0
	var sb strings.Builder
	for _, it := range items {
		mark := "[ ]"
		switch it.Status {
		case TodoDone:
			mark = "[x]"
			done++
		case TodoInProgress:
			mark = "[>]"
		}
		fmt.Fprintf(&sb, "%s %s\n", mark, it.Text)
	}
	return fmt.Sprintf("Plan (%d of %d done):\n%s", done, len(items), sb.String())
}
