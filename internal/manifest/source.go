package manifest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// source is what reflection cannot see in a package: its constants,
// aliases, doc comments and the declarations of its methods. It is read
// from the Go files.
type source struct {
	consts  []constGroup
	lists   []constList
	aliases []alias
	// docs maps "Type" and "Type.Field" to their doc comments.
	docs map[string]string
	// unions maps a named string or number type to its constants, in
	// the order they are declared.
	unions map[string][]constant
	// vars maps a package-level variable to its declaration.
	vars map[string]varDecl
	// methodList is the variables Methods lists, in its order.
	methodList []string
}

// constGroup is one const ( ... ) block of exported string constants.
type constGroup struct {
	doc    string
	consts []constant
}

// constant is an exported constant; value is a JSON literal: a quoted
// string or a number.
type constant struct {
	name, value, typ, comment string
}

// constList is an exported var holding a slice of constants, like Modes.
type constList struct {
	doc, name string
	items     []string
}

type alias struct {
	doc, name, target string
}

// varDecl is a package-level variable: its doc comment, and for one
// declared as Request[P, R]{...} or Notification[P]{...}, the names its
// type arguments are written with (an alias keeps its name here, where
// reflection sees only its target).
type varDecl struct {
	doc      string
	typeArgs []string
}

// methodsVar is the variable of package protocol that lists the methods.
const methodsVar = "Methods"

// parseSource reads the non-test Go files of the package in dir.
func parseSource(dir string) (*source, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	src := &source{docs: map[string]string{}, unions: map[string][]constant{}, vars: map[string]varDecl{}}
	fset := token.NewFileSet()
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				if err := src.add(gd); err != nil {
					return nil, fmt.Errorf("%s: %w", fset.Position(gd.Pos()), err)
				}
			}
		}
	}
	src.keepConstLists()
	return src, nil
}

func (s *source) add(gd *ast.GenDecl) error {
	switch gd.Tok {
	case token.CONST:
		s.addConsts(gd)
	case token.VAR:
		s.addVars(gd)
	case token.TYPE:
		for _, spec := range gd.Specs {
			s.addType(gd, spec.(*ast.TypeSpec))
		}
	}
	return nil
}

func (s *source) addConsts(gd *ast.GenDecl) {
	g := constGroup{doc: gd.Doc.Text()}
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		typ := ""
		if id, ok := vs.Type.(*ast.Ident); ok {
			typ = id.Name
		}
		for i, name := range vs.Names {
			if !name.IsExported() || i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok {
				continue
			}
			comment := vs.Doc.Text()
			if comment == "" {
				comment = vs.Comment.Text()
			}
			c := constant{name: name.Name, typ: typ, comment: comment}
			switch lit.Kind {
			case token.STRING:
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					continue
				}
				c.value = strconv.Quote(v)
				g.consts = append(g.consts, c)
			case token.INT, token.FLOAT:
				c.value = lit.Value // a number belongs to a union only
			default:
				continue
			}
			if typ != "" {
				s.unions[typ] = append(s.unions[typ], c)
			}
		}
	}
	if len(g.consts) > 0 {
		s.consts = append(s.consts, g)
	}
}

// addVars keeps each variable's doc comment and, for a method, the names
// of its type arguments; and lists like `Modes = []Mode{ModeDefault, ...}`
// (kept by keepConstLists when their items are constants) and Methods.
func (s *source) addVars(gd *ast.GenDecl) {
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, name := range vs.Names {
			if !name.IsExported() || i >= len(vs.Values) {
				continue
			}
			doc := firstNonEmpty(vs.Doc.Text(), gd.Doc.Text())
			cl, ok := vs.Values[i].(*ast.CompositeLit)
			if !ok {
				s.vars[name.Name] = varDecl{doc: doc}
				continue
			}
			s.vars[name.Name] = varDecl{doc: doc, typeArgs: typeArgs(cl.Type)}
			var items []string
			for _, e := range cl.Elts {
				if id, ok := e.(*ast.Ident); ok {
					items = append(items, id.Name)
				}
			}
			if len(items) != len(cl.Elts) || len(items) == 0 {
				continue
			}
			if name.Name == methodsVar {
				s.methodList = items
				continue
			}
			s.lists = append(s.lists, constList{doc: doc, name: name.Name, items: items})
		}
	}
}

// typeArgs names the type arguments of Request[P, R] or Notification[P]:
// an identifier by its name, anything else (lsp.LogMessageParams) by "",
// for reflection to name.
func typeArgs(t ast.Expr) []string {
	var idx []ast.Expr
	switch t := t.(type) {
	case *ast.IndexExpr:
		idx = []ast.Expr{t.Index}
	case *ast.IndexListExpr:
		idx = t.Indices
	default:
		return nil
	}
	out := make([]string, len(idx))
	for i, e := range idx {
		if id, ok := e.(*ast.Ident); ok {
			out[i] = id.Name
		}
	}
	return out
}

// keepConstLists drops the lists whose items are not all constants.
func (s *source) keepConstLists() {
	isConst := map[string]bool{}
	for _, g := range s.consts {
		for _, c := range g.consts {
			isConst[c.name] = true
		}
	}
	kept := s.lists[:0]
	for _, l := range s.lists {
		all := true
		for _, it := range l.items {
			all = all && isConst[it]
		}
		if all {
			kept = append(kept, l)
		}
	}
	s.lists = kept
}

func (s *source) addType(gd *ast.GenDecl, ts *ast.TypeSpec) {
	if !ts.Name.IsExported() {
		return
	}
	doc := firstNonEmpty(ts.Doc.Text(), gd.Doc.Text())
	s.docs[ts.Name.Name] = doc
	if ts.Assign.IsValid() {
		if id, ok := ts.Type.(*ast.Ident); ok {
			s.aliases = append(s.aliases, alias{doc: doc, name: ts.Name.Name, target: id.Name})
		}
		return
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return
	}
	for _, f := range st.Fields.List {
		doc := firstNonEmpty(f.Doc.Text(), f.Comment.Text())
		for _, n := range f.Names {
			s.docs[ts.Name.Name+"."+n.Name] = doc
		}
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
