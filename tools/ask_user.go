package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type askUserArgs struct {
	Question      string   `json:"question" jsonschema:"The question, complete and self-contained."`
	Options       []string `json:"options" jsonschema:"Two to nine short, distinct answers to choose from."`
	AllowFreeText bool     `json:"allow_free_text,omitempty" jsonschema:"Also let the user type an answer of their own. Default false."`
}

// An ask_user question offers this many options, so that it is a choice
// and still fits a quick pick.
const (
	minAskOptions = 2
	maxAskOptions = 9
)

//go:embed ask_user.md
var askUserDoc string

// AskUser is the ask_user tool.
var AskUser = tool.New(tool.Def[askUserArgs]{
	Name:            "ask_user",
	Doc:             askUserDoc,
	Data:            func(*tool.Settings) any { return struct{ MinOptions, MaxOptions int }{minAskOptions, maxAskOptions} },
	UserDescription: "Ask you a question with options",
	Risk:            protocol.RiskLow,
	Permission:      "the answer is the permission",
	ReadOnly:        true,
	Available:       func(env *tool.Env) bool { return env.Capabilities.AskUser },
	NotAvailable:    "needs a client that can put a question to the user: the VS Code extension, tether call, or an MCP client that offers elicitation",
	Tune: func(s *jsonschema.Schema) {
		s.Properties["question"].MinLength = jsonschema.Ptr(1)
		s.Properties["options"].MinItems = jsonschema.Ptr(minAskOptions)
		s.Properties["options"].MaxItems = jsonschema.Ptr(maxAskOptions)
	},
	Describe: func(a askUserArgs) string { return "Asking: " + a.Question },
	Run:      runAskUser,
})

func runAskUser(ctx context.Context, c *tool.Call, a askUserArgs) (tool.Result, error) {
	q := strings.TrimSpace(a.Question)
	if q == "" {
		return tool.Failf("the question is empty: write the full question you want the user to answer"), nil
	}
	seen := map[string]bool{}
	opts := make([]string, len(a.Options))
	for i, o := range a.Options {
		o = strings.TrimSpace(o)
		if o == "" {
			return tool.Failf("option %d is empty: every option needs text", i+1), nil
		}
		if seen[strings.ToLower(o)] {
			return tool.Failf("option %q appears twice: make the options distinct", o), nil
		}
		seen[strings.ToLower(o)] = true
		opts[i] = o
	}
	if c.Prepare {
		return tool.Result{Title: "Ask: " + q, Content: q}, nil
	}
	ans, err := c.Host().Ask(ctx, protocol.UserAskParams{Question: q, Options: opts, AllowFreeText: a.AllowFreeText})
	if err != nil {
		if errors.Is(err, tool.ErrNobodyToAsk) {
			return tool.Failf("nobody can be asked here (no editor or terminal); decide from what you know, and say what you assumed"), nil
		}
		if ctx.Err() != nil {
			return tool.Cancelled("ask_user"), nil
		}
		return tool.Failf("the question could not be put to the user (%v); decide from what you know, and say what you assumed", err), nil
	}
	if ans.Cancelled || strings.TrimSpace(ans.Answer) == "" {
		return tool.Text("The user did not answer. Do not guess their choice: carry on with what does not depend on it, or stop and say what you need."), nil
	}
	for _, o := range opts {
		if ans.Answer == o {
			return tool.Text(fmt.Sprintf("The user chose: %s", o)), nil
		}
	}
	return tool.Text(fmt.Sprintf("The user answered in their own words: %s", ans.Answer)), nil
}
