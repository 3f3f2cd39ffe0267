package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/protocol"
)

// Def declares a tool whose arguments decode into A. The JSON Schema the
// model sees is inferred from A's fields (json names, `jsonschema`
// descriptions, omitempty for optional), so the schema and the code that
// reads the arguments cannot drift apart.
type Def[A any] struct {
	Name            string
	Description     string // written for the model: when to use it, what it returns, its limits
	UserDescription string // a short phrase for people
	Risk            protocol.Risk
	Permission      string // in words, as DESIGN.md's table says it
	ReadOnly        bool
	// Tune adjusts the inferred schema: minimums, enums, defaults.
	Tune func(s *jsonschema.Schema)
	// Describe, when set, says in a few words what a call will do, for the
	// editor's progress line ("Reading main.go").
	Describe func(args A) string
	// Available, when set, says whether the tool is offered in env.
	Available func(env *Env) bool
	Run       func(ctx context.Context, c *Call, args A) Result
}

type defTool[A any] struct {
	info      protocol.ToolInfo
	resolved  *jsonschema.Resolved
	props     []string
	available func(env *Env) bool
	describe  func(args A) string
	run       func(ctx context.Context, c *Call, args A) Result
}

// New turns a declaration into a Tool. It panics on a schema that cannot be
// inferred: that is a programming error caught by any test.
func New[A any](d Def[A]) Tool {
	s, err := jsonschema.For[A](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", d.Name, err))
	}
	notNull(s)
	if d.Tune != nil {
		d.Tune(s)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", d.Name, err))
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", d.Name, err))
	}
	props := make([]string, 0, len(s.Properties))
	for p := range s.Properties {
		props = append(props, p)
	}
	sort.Strings(props)
	return &defTool[A]{
		info: protocol.ToolInfo{
			Name:            d.Name,
			Description:     d.Description,
			UserDescription: d.UserDescription,
			InputSchema:     raw,
			Risk:            d.Risk,
			Permission:      d.Permission,
			ReadOnly:        d.ReadOnly,
		},
		resolved:  resolved,
		props:     props,
		available: d.Available,
		describe:  d.Describe,
		run:       d.Run,
	}
}

func (t *defTool[A]) Info() protocol.ToolInfo { return t.info }

func (t *defTool[A]) Available(env *Env) bool {
	return t.available == nil || env == nil || t.available(env)
}

// Describe says what a call will do, in a few words; arguments that do
// not decode get the tool's own short description.
func (t *defTool[A]) Describe(raw json.RawMessage) string {
	if t.describe != nil {
		if args, err := t.decode(raw); err == nil {
			return t.describe(args)
		}
	}
	if t.info.UserDescription != "" {
		return t.info.UserDescription
	}
	return t.info.Name
}

func (t *defTool[A]) Run(ctx context.Context, c *Call) Result {
	args, err := t.decode(c.Args)
	if err != nil {
		return Errorf("invalid arguments for %s: %v. It takes: %s.", t.info.Name, err, t.describeArgs())
	}
	return t.run(ctx, c, args)
}

// decode validates raw against the schema, then unmarshals it, so a wrong
// type or a misspelt argument is named in the error instead of silently
// becoming a zero value.
func (t *defTool[A]) decode(raw json.RawMessage) (A, error) {
	var args A
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	// One parse for the checks (the validator wants plain float64 numbers),
	// one into the typed arguments.
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return args, fmt.Errorf("arguments are not valid JSON (%v)", err)
	}
	obj, ok := instance.(map[string]any)
	if !ok {
		return args, errors.New("arguments must be a JSON object")
	}
	for k := range obj {
		if _, known := t.resolved.Schema().Properties[k]; !known {
			return args, fmt.Errorf("unknown argument %q", k)
		}
	}
	if err := t.resolved.Validate(instance); err != nil {
		return args, errors.New(cleanValidation(err.Error()))
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return args, err
	}
	return args, nil
}

// notNull drops the "null" that inference allows for slices: a model that
// sends null where a list belongs should be told, not have it pass as empty
// and dodge minItems.
func notNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		notNull(p)
	}
	notNull(s.Items)
}

// describeArgs lists the arguments with their types, required ones marked.
func (t *defTool[A]) describeArgs() string {
	s := t.resolved.Schema()
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	parts := make([]string, 0, len(t.props))
	for _, p := range t.props {
		typ := s.Properties[p].Type
		if typ == "" && len(s.Properties[p].Types) > 0 {
			typ = strings.Join(s.Properties[p].Types, "|")
		}
		opt := "?"
		if required[p] {
			opt = ""
		}
		parts = append(parts, fmt.Sprintf("%s%s (%s)", p, opt, typ))
	}
	if len(parts) == 0 {
		return "no arguments"
	}
	return strings.Join(parts, ", ")
}

// cleanValidation trims the validator's schema-path noise from a message.
func cleanValidation(msg string) string {
	msg = strings.TrimPrefix(msg, "validating root: ")
	msg = strings.ReplaceAll(msg, "validating /properties/", "argument ")
	return msg
}
