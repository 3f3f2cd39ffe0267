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

// source is what reflection cannot see in the protocol package: its
// constants, aliases and doc comments. It is read from the Go files.
type source struct {
	consts  []constGroup
	lists   []constList
	aliases []alias
	// docs maps "Type" and "Type.Field" to their doc comments.
	docs map[string]string
	// unions maps a named string type to its constants' values.
	unions map[string][]string
}

// constGroup is one const ( ... ) block of exported string constants.
type constGroup struct {
	doc    string
	consts []constant
}

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
	src := &source{docs: map[string]string{}, unions: map[string][]string{}}
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
	return src, nil
}

func (s *source) add(gd *ast.GenDecl) error {
	switch gd.Tok {
	case token.CONST:
		s.addConsts(gd)
	case token.VAR:
		s.addLists(gd)
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
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				continue
			}
			comment := vs.Doc.Text()
			if comment == "" {
				comment = vs.Comment.Text()
			}
			g.consts = append(g.consts, constant{name: name.Name, value: v, typ: typ, comment: comment})
			if typ != "" {
				s.unions[typ] = append(s.unions[typ], v)
			}
		}
	}
	if len(g.consts) > 0 {
		s.consts = append(s.consts, g)
	}
}

// addLists keeps exported vars like `Modes = []string{ModeDefault, ...}`.
func (s *source) addLists(gd *ast.GenDecl) {
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, name := range vs.Names {
			if !name.IsExported() || i >= len(vs.Values) {
				continue
			}
			cl, ok := vs.Values[i].(*ast.CompositeLit)
			if !ok {
				continue
			}
			l := constList{doc: firstNonEmpty(vs.Doc.Text(), gd.Doc.Text()), name: name.Name}
			for _, e := range cl.Elts {
				if id, ok := e.(*ast.Ident); ok {
					l.items = append(l.items, id.Name)
				}
			}
			if len(l.items) == len(cl.Elts) && len(l.items) > 0 {
				s.lists = append(s.lists, l)
			}
		}
	}
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
