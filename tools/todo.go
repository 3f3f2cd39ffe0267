package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/tool"
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

//go:embed todo.md
var todoDoc string

// Todo is the todo tool.
var Todo = tool.New(tool.Def[todoArgs]{
	Name:            "todo",
	Doc:             todoDoc,
	Data:            func(*tool.Settings) any { return struct{ MaxItems int }{maxTodoItems} },
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
	Describe:   func(a todoArgs) string { return "Updating the plan" },
	WritesPlan: true,
	Run:        runTodo,
})

func runTodo(ctx context.Context, c *tool.Call, a todoArgs) (tool.Result, error) {
	items := make([]protocol.TodoItem, len(a.Items))
	inProgress := 0
	for i, it := range a.Items {
		text := strings.TrimSpace(it.Text)
		if text == "" {
			return tool.Failf("step %d has no text: give every step a short description", i+1), nil
		}
		if it.Status == TodoInProgress {
			inProgress++
		}
		items[i] = protocol.TodoItem{Text: text, Status: it.Status}
	}
	if inProgress > 1 {
		return tool.Failf("%d steps are in_progress; keep exactly one in progress at a time (mark the others pending or done)", inProgress), nil
	}
	if c.Session.Depth() > 0 {
		// A sub-agent's plan is its own working note: the view shows the
		// plan of the agent the user talks to, with the sub-agent's calls
		// under its step.
		c.Session.SetPlan(items)
		return tool.Text(FormatPlan(items)), nil
	}
	c.Session.PublishPlan(ctx, c.Host(), items)
	return tool.Text(FormatPlan(items)), nil
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
