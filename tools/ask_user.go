package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/protocol"
)

type askUserArgs struct {
	Question      string   `json:"question" jsonschema:"The question, complete and self-contained."`
	Options       []string `json:"options" jsonschema:"Two to nine short, distinct answers to choose from."`
	AllowFreeText bool     `json:"allow_free_text,omitempty" jsonschema:"Also let the user type an answer of their own. Default false."`
}

// AskUser is the ask_user tool.
var AskUser = New(Def[askUserArgs]{
	Name: "ask_user",
	Description: `Ask the user a question and wait for the answer, when you need a decision only they can make (which approach, which file, whether to go ahead). ` +
		`Give two to nine short, distinct options; set allow_free_text to let them write their own answer. ` +
		`Returns the chosen option or their words. If they dismiss the question the result says they did not answer: then do not guess, carry on with what does not depend on it or stop. Do not use it for things you can find out with the other tools.`,
	UserDescription: "Ask you a question with options",
	Risk:            protocol.RiskLow,
	Permission:      "the answer is the permission",
	ReadOnly:        true,
	Available: func(env *Env) bool {
		_, ok := env.Host.(Asker)
		return ok && env.Capabilities.AskUser
	},
	Tune: func(s *jsonschema.Schema) {
		s.Properties["question"].MinLength = jsonschema.Ptr(1)
		s.Properties["options"].MinItems = jsonschema.Ptr(2)
		s.Properties["options"].MaxItems = jsonschema.Ptr(9)
	},
	Describe: func(a askUserArgs) string { return "Asking: " + a.Question },
	Run:      runAskUser,
})

func runAskUser(ctx context.Context, c *Call, a askUserArgs) Result {
	q := strings.TrimSpace(a.Question)
	if q == "" {
		return Errorf("the question is empty: write the full question you want the user to answer")
	}
	seen := map[string]bool{}
	opts := make([]string, len(a.Options))
	for i, o := range a.Options {
		o = strings.TrimSpace(o)
		if o == "" {
			return Errorf("option %d is empty: every option needs text", i+1)
		}
		if seen[strings.ToLower(o)] {
			return Errorf("option %q appears twice: make the options distinct", o)
		}
		seen[strings.ToLower(o)] = true
		opts[i] = o
	}
	asker, _ := c.Env.Host.(Asker)
	if asker == nil {
		return Errorf("nobody can be asked here (no editor or terminal); decide from what you know, and say what you assumed")
	}
	if c.Prepare {
		return Result{Title: "Ask: " + q, Content: q}
	}
	ans, err := asker.Ask(ctx, protocol.UserAskParams{Question: q, Options: opts, AllowFreeText: a.AllowFreeText})
	if err != nil {
		if ctx.Err() != nil {
			return cancelled("ask_user")
		}
		return Errorf("the question could not be put to the user (%v); decide from what you know, and say what you assumed", err)
	}
	if ans.Cancelled || strings.TrimSpace(ans.Answer) == "" {
		return Text("The user did not answer. Do not guess their choice: carry on with what does not depend on it, or stop and say what you need.")
	}
	for _, o := range opts {
		if ans.Answer == o {
			return Text(fmt.Sprintf("The user chose: %s", o))
		}
	}
	return Text(fmt.Sprintf("The user answered in their own words: %s", ans.Answer))
}
