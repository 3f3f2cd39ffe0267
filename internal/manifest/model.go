package manifest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/protocol"
)

const (
	protocolPkg = "github.com/tether-dev/tether/protocol"
	lspPkg      = "go.lsp.dev/protocol"
	uriPkg      = "go.lsp.dev/uri"
)

// builtin names the types whose JSON is not what their Go shape says (they
// marshal themselves, or are plain JSON): reflection cannot follow them.
var builtin = map[reflect.Type]string{
	reflect.TypeFor[protocol.Void]():     voidType,
	reflect.TypeFor[json.RawMessage]():   "unknown",
	reflect.TypeFor[time.Time]():         "string",
	reflect.TypeFor[lsp.ProgressToken](): "number | string",
}

// voidType stands for protocol.Void: no params, or a null result.
const voidType = "void"

// noneType is protocol.None's JSON: an empty object.
const noneType = "Record<string, never>"

// renamed gives a type of another package the name the protocol uses for
// it: go.lsp.dev/protocol's DocumentURI is an alias of uri.URI, which
// reflection sees.
var renamed = map[reflect.Type]string{
	reflect.TypeFor[lsp.DocumentURI](): "DocumentURI",
}

// model is the wire contract as the generators see it: the methods of the
// protocol's table and every named type their params and results reach,
// by reflection, with the doc comments of their sources.
type model struct {
	methods []methodInfo
	types   []*namedType // in the order they are first reached
	byType  map[reflect.Type]*namedType
	byName  map[string]*namedType
	src     *source // package protocol
	lsp     *source // go.lsp.dev/protocol
}

// methodInfo is one method of the table.
type methodInfo struct {
	protocol.Method
	goName string // Initialize, ToolsCall: its variable in package protocol
	doc    string
	params typeExpr
	result *typeExpr // nil for a notification
}

// namedType is a type the generators declare.
type namedType struct {
	t    reflect.Type
	name string
	doc  string
	lsp  bool // from go.lsp.dev/protocol
	// One of these describes it: fields (a struct), values (a string or
	// number with constants), or target (anything else, named for what its
	// JSON is).
	fields []field
	values []constant
	target *typeExpr
}

// field is one member of a struct's JSON.
type field struct {
	json     string
	goName   string
	optional bool // omitempty: may be absent
	nullable bool // always present, but encoding/json may write null
	typ      typeExpr
	doc      string
}

// typeExpr is the type of a value on the wire.
type typeExpr struct {
	named *namedType // a declared type
	plain string     // or a built-in one: string, number, boolean, unknown
	elem  *typeExpr  // or an array of elem
	value *typeExpr  // or an object whose members are all value
}

// loadModel builds the model from the table and the sources of package
// protocol (in protocolDir) and of go.lsp.dev/protocol (found by the go
// command, from root).
func loadModel(root string) (*model, error) {
	src, err := parseSource(filepath.Join(root, protocolDir))
	if err != nil {
		return nil, err
	}
	lspDir, err := moduleDir(root, lspPkg)
	if err != nil {
		return nil, err
	}
	lspSrc, err := parseSource(lspDir)
	if err != nil {
		return nil, err
	}
	m := &model{byType: map[reflect.Type]*namedType{}, byName: map[string]*namedType{}, src: src, lsp: lspSrc}
	if len(src.methodList) != len(protocol.Methods) {
		return nil, fmt.Errorf("protocol.%s lists %d methods in its source and %d when run: a stale source?", methodsVar, len(src.methodList), len(protocol.Methods))
	}
	for i, pm := range protocol.Methods {
		name := src.methodList[i]
		v := src.vars[name]
		mi := methodInfo{Method: pm, goName: name, doc: v.doc}
		if mi.params, err = m.expr(pm.Params(), argName(v.typeArgs, 0)); err != nil {
			return nil, fmt.Errorf("%s params: %w", pm.Name(), err)
		}
		if r := pm.Result(); r != nil {
			res, err := m.expr(r, argName(v.typeArgs, 1))
			if err != nil {
				return nil, fmt.Errorf("%s result: %w", pm.Name(), err)
			}
			mi.result = &res
		}
		m.methods = append(m.methods, mi)
	}
	return m, nil
}

// summary is the method's doc comment without the variable's name it
// starts with, as Go's convention has it: "Runs one tool." for "ToolsCall
// runs one tool."
func (mi methodInfo) summary() string {
	doc := strings.TrimSpace(mi.doc)
	rest, ok := strings.CutPrefix(doc, mi.goName+" ")
	if !ok || rest == "" {
		return doc
	}
	return strings.ToUpper(rest[:1]) + rest[1:]
}

func argName(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

// moduleDir is the folder of a module's package as the go command finds it.
func moduleDir(root, pkg string) (string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %w", pkg, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// expr is the wire type of t; alias, when not empty, is the name the
// source gives t (an alias of it).
func (m *model) expr(t reflect.Type, alias string) (typeExpr, error) {
	e, err := m.exprOf(t)
	if err != nil || alias == "" || e.named == nil || alias == e.named.name {
		return e, err
	}
	a, ok := m.byName[alias]
	if !ok {
		a = &namedType{t: t, name: alias, doc: m.src.docs[alias], target: &e}
		m.add(a)
	}
	return typeExpr{named: a}, nil
}

func (m *model) add(n *namedType) {
	m.types = append(m.types, n)
	m.byName[n.name] = n
}

func (m *model) exprOf(t reflect.Type) (typeExpr, error) {
	if name, ok := builtin[t]; ok {
		return typeExpr{plain: name}, nil
	}
	if n, ok := m.byType[t]; ok {
		return typeExpr{named: n}, nil
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return m.declare(t)
	}
	return m.shape(t)
}

// shape is the wire type of t's kind, whatever t's name.
func (m *model) shape(t reflect.Type) (typeExpr, error) {
	switch t.Kind() {
	case reflect.Bool:
		return typeExpr{plain: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return typeExpr{plain: "number"}, nil
	case reflect.String:
		return typeExpr{plain: "string"}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return typeExpr{plain: "string"}, nil // encoding/json writes bytes as base64
		}
		elem, err := m.exprOf(t.Elem())
		return typeExpr{elem: &elem}, err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return typeExpr{}, fmt.Errorf("map %v: only string keys are JSON object keys", t)
		}
		v, err := m.exprOf(t.Elem())
		return typeExpr{value: &v}, err
	case reflect.Pointer:
		return m.exprOf(t.Elem())
	case reflect.Interface:
		return typeExpr{plain: "unknown"}, nil
	case reflect.Struct:
		return typeExpr{}, fmt.Errorf("anonymous struct types are not supported: name the type")
	}
	return typeExpr{}, fmt.Errorf("type %v (%v) has no JSON mapping", t, t.Kind())
}

// declare adds the named type t, and the types its fields reach.
func (m *model) declare(t reflect.Type) (typeExpr, error) {
	var src *source
	switch t.PkgPath() {
	case protocolPkg:
		src = m.src
	case lspPkg, uriPkg:
		src = m.lsp
	default:
		return typeExpr{}, fmt.Errorf("type %v is from package %s, which the protocol does not carry: add it to manifest's builtin map", t, t.PkgPath())
	}
	name := t.Name()
	if r, ok := renamed[t]; ok {
		name = r
	}
	if other, taken := m.byName[name]; taken {
		return typeExpr{}, fmt.Errorf("%v and %v would both be named %s", other.t, t, name)
	}
	n := &namedType{t: t, name: name, doc: src.docs[name], lsp: src == m.lsp}
	m.byType[t] = n
	m.add(n)
	switch {
	case t == reflect.TypeFor[protocol.None]():
		n.target = &typeExpr{plain: noneType}
	case t.Kind() == reflect.Struct:
		if err := m.fields(n, t, src); err != nil {
			return typeExpr{}, fmt.Errorf("%s: %w", name, err)
		}
	case len(src.unions[t.Name()]) > 0:
		n.values = src.unions[t.Name()]
	default:
		underlying, err := m.shape(t)
		if err != nil {
			return typeExpr{}, fmt.Errorf("%s: %w", name, err)
		}
		n.target = &underlying
	}
	return typeExpr{named: n}, nil
}

func (m *model) fields(n *namedType, t reflect.Type, src *source) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if err := m.fields(n, f.Type, src); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		typ, err := m.exprOf(f.Type)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		n.fields = append(n.fields, field{
			json: name, goName: f.Name, optional: optional, nullable: !optional && nullable(f.Type),
			typ: typ, doc: src.docs[t.Name()+"."+f.Name],
		})
	}
	return nil
}

// nullable says whether encoding/json can write null for a field of type t:
// a nil slice, map or pointer.
func nullable(t reflect.Type) bool {
	if _, ok := builtin[t]; ok {
		return false
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return true
	}
	return false
}
