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

	// What the tool list needs is made on first use, not when the program
	// starts: a command that never lists the tools never pays for it. The
	// schema comes from the table built with the program (SetBuiltSchemas)
	// when it has this tool, so the list costs no inference.
	once   sync.Once
	schema json.RawMessage
	// The description's template is parsed when a description is not in
	// the table built with the program (SetBuiltDescriptions).
	docOnce sync.Once
	doc     *template.Template

	// What decoding a call needs, made on the first call.
	decodeOnce sync.Once
	check      *argCheck        // nil: every call is validated the slow way
	fields     *jsonscan.Fields // nil: arguments are decoded by encoding/json alone

	// The schema as a value, inferred from A when a call needs it: for
	// arguments the one-pass check refuses, for the list of arguments in
	// an error, and where the table has no schema for the tool.
	inferOnce   sync.Once
	inferred    *jsonschema.Schema
	inferredRaw json.RawMessage
	props       []string

	// The validator is made on the first call the one-pass check refuses:
	// most processes never need it, and making it is most of what a
	// tool's first use costs.
	resolveOnce sync.Once
	resolved    *jsonschema.Resolved
}

// builtSchema gives the tools' input schemas as inferred when the
// program was built, by SchemaKey; see SetBuiltSchemas.
var builtSchema = func(string) (string, bool) { return "", false }

// SetBuiltSchemas gives the package the input schemas a generated file
// holds (tools/schemas_gen.go, written by internal/manifest/cmd/gen), by
// SchemaKey, so that listing the tools infers none of them by reflection
// at run time. It is called from an init function, before any tool is
// used. A tool the table does not have, or has under another argument
// type, has its schema inferred as before; a test compares the table with
// the inference.
func SetBuiltSchemas(lookup func(key string) (schema string, ok bool)) { builtSchema = lookup }

// builtDescription gives the tools' descriptions as rendered when the
// program was built, by DescriptionKey; see SetBuiltDescriptions.
var builtDescription = func(string) (string, bool) { return "", false }

// SetBuiltDescriptions gives the package the descriptions a generated
// file holds (tools/descriptions_gen.go, written by
// internal/manifest/cmd/gen), rendered for the default settings on
// Linux, so that the tool list at start parses and renders no template:
// that was half a millisecond of the answer to initialize. A description
// the table does not have for the values in force (another setting,
// another platform) is rendered as before; a test compares the table
// with the rendering. It is called from an init function.
func SetBuiltDescriptions(lookup func(key string) (description string, ok bool)) {
	builtDescription = lookup
}

// DescriptionKey is the key of t's description for s in the table
// SetBuiltDescriptions takes; RenderedDescription is that description
// rendered now, bypassing the table. Both are "" for a tool not made by
// New.
func DescriptionKey(t Tool, s *Settings) string {
	if d, ok := t.(interface {
		descriptionKey(*Settings) (string, any)
	}); ok {
		key, _ := d.descriptionKey(s)
		return key
	}
	return ""
}

// RenderedDescription: see DescriptionKey.
func RenderedDescription(t Tool, s *Settings) string {
	if d, ok := t.(interface {
		descriptionKey(*Settings) (string, any)
		render(any) string
	}); ok {
		_, data := d.descriptionKey(s)
		return d.render(data)
	}
	return ""
}

// SchemaKey is the key of a tool's schema in the table SetBuiltSchemas
// takes: its name and the type of its arguments.
func SchemaKey(t Tool) string {
	if k, ok := t.(interface{ schemaKey() string }); ok {
		return k.schemaKey()
	}
	return ""
}

// InferredSchema is t's input schema inferred from its argument type now,
// bypassing the built table: what the generator writes into the table,
// and what the test compares it with.
func InferredSchema(t Tool) (json.RawMessage, error) {
	i, ok := t.(interface {
		inferSchema() (json.RawMessage, error)
	})
	if !ok {
		return nil, fmt.Errorf("tool %s is not made by tool.New", t.Name())
	}
	return i.inferSchema()
}

// New turns a declaration into a Tool. A schema that cannot be inferred or
// a template that does not parse is a programming error: it panics on
// first use, which any test of the registry reaches.
func New[A any](d Def[A]) Tool {
	return &defTool[A]{def: d}
}

func (t *defTool[A]) schemaKey() string {
	return t.def.Name + " " + reflect.TypeFor[A]().String()
}

// init makes what the tool list needs: the schema.
func (t *defTool[A]) init() {
	t.once.Do(func() {
		if s, ok := builtSchema(t.schemaKey()); ok {
			t.schema = json.RawMessage(s)
		} else {
			t.schema = t.infer().raw
		}
	})
}

// initDecode makes what decoding a call needs: the one-pass check of
// the arguments against the schema, and the decoder of A's fields.
func (t *defTool[A]) initDecode() {
	t.init()
	t.decodeOnce.Do(func() {
		if t.check = compileArgCheck(t.schema); t.check == nil {
			t.resolve() // every call needs the validator
		}
		t.fields = jsonscan.For(reflect.TypeFor[A]())
	})
}

// inference is a schema inferred from A, with its encoding.
type inference struct {
	schema *jsonschema.Schema
	raw    json.RawMessage
	err    error
}

func (t *defTool[A]) inferSchema() (json.RawMessage, error) {
	i := t.inferNow()
	return i.raw, i.err
}

// inferNow infers the schema from A, tuned, and encodes it.
func (t *defTool[A]) inferNow() inference {
	s, err := jsonschema.For[A](nil)
	if err != nil {
		return inference{err: err}
	}
	notNull(s)
	if t.def.Tune != nil {
		t.def.Tune(s)
	}
	raw, err := json.Marshal(s)
	return inference{schema: s, raw: raw, err: err}
}

// infer is the schema as a value, inferred once, with its encoding; it
// panics where the schema cannot be inferred, a programming error.
func (t *defTool[A]) infer() inference {
	t.inferOnce.Do(func() {
		i := t.inferNow()
		if i.err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.def.Name, i.err))
		}
		t.inferred, t.inferredRaw = i.schema, i.raw
		for p := range i.schema.Properties {
			t.props = append(t.props, p)
		}
		sort.Strings(t.props)
	})
	return inference{schema: t.inferred, raw: t.inferredRaw}
}

// inferredSchema is the schema as a value, for the slow paths.
func (t *defTool[A]) inferredSchema() *jsonschema.Schema { return t.infer().schema }

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

// description is Doc rendered with the numbers in force: from the table
// built with the program when it holds this tool's description for these
// numbers, else rendered now.
func (t *defTool[A]) description(s *Settings) string {
	key, data := t.descriptionKey(s)
	if d, ok := builtDescription(key); ok {
		return d
	}
	return t.render(data)
}

// descriptionKey is the key of the description for s in the built table:
// the tool's name and the values the description is rendered from, so a
// setting that changes the text misses the table instead of showing the
// wrong numbers.
func (t *defTool[A]) descriptionKey(s *Settings) (key string, data any) {
	if t.def.Data != nil {
		data = t.def.Data(s)
	}
	return t.def.Name + " " + fmt.Sprintf("%#v", data), data
}

// render renders Doc with data. Markdown line breaks inside a paragraph
// are joined, so the model reads one line per paragraph.
func (t *defTool[A]) render(data any) string {
	t.docOnce.Do(func() {
		t.doc = template.Must(template.New(t.def.Name).Funcs(DocFuncs).Option("missingkey=error").Parse(t.def.Doc))
	})
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
	t.initDecode()
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
		return args, explainDecode(t.inferredSchema(), err)
	}
	return args, nil
}

// resolve makes the validator. A schema it cannot resolve is a
// programming error, like one that cannot be inferred.
func (t *defTool[A]) resolve() *jsonschema.Resolved {
	t.resolveOnce.Do(func() {
		var err error
		if t.resolved, err = t.inferredSchema().Resolve(nil); err != nil {
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
	inferred := t.inferredSchema()
	for k := range obj {
		if _, known := inferred.Properties[k]; !known {
			return fmt.Errorf("unknown argument %q", k)
		}
	}
	if err := t.resolve().Validate(instance); err != nil {
		return errors.New(explainArgs(inferred, instance, cleanValidation(err.Error())))
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
	s := t.inferredSchema()
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
