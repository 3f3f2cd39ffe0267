package protocol

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// methodConsts reads the Method* constants of this package's sources, and
// which of the two const blocks each is in: "Client → daemon" or "Daemon →
// client", by the block's doc comment.
func methodConsts(t *testing.T) map[string]Direction {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Direction{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			var dir Direction
			switch doc := gd.Doc.Text(); {
			case strings.HasPrefix(doc, "Client → daemon"):
				dir = ClientToDaemon
			case strings.HasPrefix(doc, "Daemon → client"):
				dir = DaemonToClient
			case strings.Contains(doc, "tether mcp → approver"):
				dir = MCPToApprover
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Method") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s is not a string literal", n.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					if dir == 0 {
						t.Fatalf("%s = %q is in a const block that says neither client → daemon nor daemon → client", n.Name, v)
					}
					out[v] = dir
				}
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("found only %d method constants: %v", len(out), out)
	}
	return out
}

// Every method name the package declares is in the table, in the
// direction its block says, and the table holds nothing else.
func TestEveryMethodIsInTheTable(t *testing.T) {
	consts := methodConsts(t)
	seen := map[string]bool{}
	for _, m := range Methods {
		if seen[m.Name()] {
			t.Errorf("%s is in the table twice", m.Name())
		}
		seen[m.Name()] = true
		dir, ok := consts[m.Name()]
		switch {
		case !ok:
			t.Errorf("%s is in the table but has no Method constant", m.Name())
		case m.Direction() == BothWays:
			// $/cancelRequest: its constant sits with the client's methods.
		case dir != m.Direction():
			t.Errorf("%s: the table says %v, its constant's block %v", m.Name(), m.Direction(), dir)
		}
		if got, ok := Lookup(m.Name()); !ok || got != m {
			t.Errorf("Lookup(%q) = %v, %v", m.Name(), got, ok)
		}
	}
	for name := range consts {
		if !seen[name] {
			t.Errorf("method %s has a constant but no entry in Methods: declare it in methods.go", name)
		}
	}
	if _, ok := Lookup("no/such"); ok {
		t.Error("Lookup found a method that does not exist")
	}
}

// Each method's types are what the wire carries: structs of this package
// (or LSP's), never a bare map or any, so that every field is declared.
func TestMethodTypesAreDeclared(t *testing.T) {
	for _, m := range Methods {
		types := []reflect.Type{m.Params()}
		if r := m.Result(); r != nil {
			types = append(types, r)
		}
		for _, typ := range types {
			if typ.Kind() != reflect.Struct {
				t.Errorf("%s carries a %v; declare a struct", m.Name(), typ)
			}
		}
	}
}

func TestNoneAndVoid(t *testing.T) {
	if b, _ := json.Marshal(None{}); string(b) != "{}" {
		t.Errorf("None marshals to %s", b)
	}
	if b, _ := json.Marshal(Void{}); string(b) != "null" {
		t.Errorf("Void marshals to %s", b)
	}
	// Whatever a client sends where nothing is expected is ignored, as
	// the daemon always has.
	for _, in := range []string{`{}`, `null`, `[1,2]`, `{"x":1}`} {
		var n None
		if err := json.Unmarshal([]byte(in), &n); err != nil {
			t.Errorf("None refuses %s: %v", in, err)
		}
		var v Void
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Errorf("Void refuses %s: %v", in, err)
		}
	}
}
