package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/jsonscan"
	"github.com/tether-dev/tether/protocol"
)

// Def declares a tool whose arguments decode into A. The JSON Schema the
// model sees is inferred from A's fields (json names, `jsonschema`
// descriptions, omitempty for optional), so the schema and the code that
// reads the arguments cannot drift apart.
type Def[A any] struct {
	Name string
	// Doc is the description the model reads: when to use the tool, what
	// it returns, its limits. It is a text/template, embedded from the
	// Markdown file beside the tool (read_file.md), and every number in it
	// comes from Data, so no number is typed twice.
	Doc string
	// Data gives Doc's template the numbers in force under s: defaults,
	// caps, timeouts, including those a setting changes.
	Data            func(s *Settings) any
	UserDescription string // a short phrase for people
	Risk            protocol.Risk
	Permission      string // in words, as DESIGN.md's table says it
	ReadOnly        bool
	// Repeatable says identical calls rightly give new answers (polling a
	// background job), so the repeat guard lets them through.
	Repeatable bool
	// Previews says a read-only tool answers a preview (Call.Prepare) by
	// itself, with no side effect, saying whether it would ask: a preview
	// then runs it, as it runs every tool that changes something, instead
	// of describing it from its arguments alone.
	Previews bool
	// Tune adjusts the inferred schema: minimums, enums, defaults.
	Tune func(s *jsonschema.Schema)
	// Describe, when set, says in a few words what a call will do, for the
	// editor's progress line ("Reading main.go").
	Describe func(args A) string
	// Available, when set, says whether the tool is offered in env.
	Available func(env *Env) bool
	// NotAvailable says, for people, what the tool needs where Available
	// says no ("a client that serves a language model").
	NotAvailable string
	// WritesPlan marks the tool that writes the plan (todo): its own calls
	// are not listed under the plan's steps.
	WritesPlan bool
	// ChangesFiles marks a tool whose calls are a change of files (or of
	// project memory) through the change pipeline: each result's Status
	// says what became of the change, and a front end that returns
	// structured results describes them by it.
	ChangesFiles bool
	Run          func(ctx context.Context, c *Call, args A) (Result, error)
}

type defTool[A any] struct {
	def Def[A]

	// The schema and the description template are built on first use,
	// not when the program starts: a command that never lists the tools
	// never pays for them.
	once     sync.Once
	schema   json.RawMessage
	inferred *jsonschema.Schema
	check    *argCheck        // nil: every call is validated the slow way
	fields   *jsonscan.Fields // nil: arguments are decoded by encoding/json alone
	props    []string
	doc      *template.Template

	// The validator is made on the first call the one-pass check refuses:
	// most processes never need it, and making it is most of what a
	// tool's first use costs.
	resolveOnce sync.Once
	resolved    *jsonschema.Resolved
}

// New turns a declaration into a Tool. A schema that cannot be inferred or
// a template that does not parse is a programming error: it panics on
// first use, which any test of the registry reaches.
func New[A any](d Def[A]) Tool {
	return &defTool[A]{def: d}
}

func (t *defTool[A]) init() {
	t.once.Do(func() {
		d := t.def
		s, err := jsonschema.For[A](nil)
		if err != nil {
			panic(fmt.Sprintf("tool %s: %v", d.Name, err))
		}
		notNull(s)
		if d.Tune != nil {
			d.Tune(s)
		}
		t.inferred = s
		if t.schema, err = json.Marshal(s); err != nil {
			panic(fmt.Sprintf("tool %s: %v", d.Name, err))
		}
		if t.check = compileArgCheck(t.schema); t.check == nil {
			t.resolve() // every call needs the validator
		}
		t.fields = jsonscan.For(reflect.TypeFor[A]())
		for p := range s.Properties {
			t.props = append(t.props, p)
		}
		sort.Strings(t.props)
		t.doc = template.Must(template.New(d.Name).Funcs(DocFuncs).Option("missingkey=error").Parse(d.Doc))
	})
}

func (t *defTool[A]) Name() string { return t.def.Name }

func (t *defTool[A]) readOnly() bool { return t.def.ReadOnly }

func (t *defTool[A]) previews() bool { return t.def.Previews }

func (t *defTool[A]) changesFiles() bool { return t.def.ChangesFiles }

func (t *defTool[A]) Info(s *Settings) protocol.ToolInfo {
	t.init()
	return protocol.ToolInfo{
		Name:            t.def.Name,
		Description:     t.description(s),
		UserDescription: t.def.UserDescription,
		InputSchema:     t.schema,
		Risk:            t.def.Risk,
		Permission:      t.def.Permission,
		ReadOnly:        t.def.ReadOnly,
	}
}

// description renders Doc with the numbers in force. Markdown line breaks
// inside a paragraph are joined, so the model reads one line per paragraph.
func (t *defTool[A]) description(s *Settings) string {
	var data any
	if t.def.Data != nil {
		data = t.def.Data(s)
	}
	var b strings.Builder
	if err := t.doc.Execute(&b, data); err != nil {
		panic(fmt.Sprintf("tool %s: description: %v", t.def.Name, err))
	}
	return joinParagraphs(b.String())
}

func (t *defTool[A]) Available(env *Env) bool {
	return t.def.Available == nil || env == nil || t.def.Available(env)
}

func (t *defTool[A]) Repeatable() bool { return t.def.Repeatable }

func (t *defTool[A]) UnavailableReason() string { return t.def.NotAvailable }

func (t *defTool[A]) WritesPlan() bool { return t.def.WritesPlan }

// Describe says what a call will do, in a few words; arguments that do
// not decode get the tool's own short description.
func (t *defTool[A]) Describe(raw json.RawMessage) string {
	if t.def.Describe != nil {
		if args, err := t.decode(raw); err == nil {
			return t.def.Describe(args)
		}
	}
	if t.def.UserDescription != "" {
		return t.def.UserDescription
	}
	return t.def.Name
}

func (t *defTool[A]) Run(ctx context.Context, c *Call) (Result, error) {
	args, err := t.decode(c.Args)
	if err != nil {
		return Failf("invalid arguments for %s: %v. It takes: %s.", t.def.Name, err, t.describeArgs()), nil
	}
	return t.def.Run(ctx, c, args)
}

// decode validates raw against the schema, then unmarshals it, so a wrong
// type or a misspelt argument is named in the error instead of silently
// becoming a zero value. Arguments the one-pass check accepts are decoded
// once, into A; any others go through the validator, which says what is
// wrong with them.
func (t *defTool[A]) decode(raw json.RawMessage) (A, error) {
	t.init()
	var args A
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if t.check != nil && t.check.ok(raw) {
		if t.fields != nil && t.fields.Decode(raw, &args) {
			return args, nil
		}
		args = *new(A)
	} else if err := t.validate(raw); err != nil {
		return args, err
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return args, explainDecode(t.inferred, err)
	}
	return args, nil
}

// resolve makes the validator. A schema it cannot resolve is a
// programming error, like one that cannot be inferred.
func (t *defTool[A]) resolve() *jsonschema.Resolved {
	t.resolveOnce.Do(func() {
		var err error
		if t.resolved, err = t.inferred.Resolve(nil); err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.def.Name, err))
		}
	})
	return t.resolved
}

// validate checks raw against the schema the slow way: decoded into maps,
// for the validator, which names the argument at fault.
func (t *defTool[A]) validate(raw json.RawMessage) error {
	// One parse for the checks (the validator wants plain float64 numbers).
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return fmt.Errorf("arguments are not valid JSON (%v)", err)
	}
	obj, ok := instance.(map[string]any)
	if !ok {
		return errors.New("arguments must be a JSON object")
	}
	for k := range obj {
		if _, known := t.inferred.Properties[k]; !known {
			return fmt.Errorf("unknown argument %q", k)
		}
	}
	if err := t.resolve().Validate(instance); err != nil {
		return errors.New(explainArgs(t.inferred, instance, cleanValidation(err.Error())))
	}
	return nil
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
	s := t.inferred
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
