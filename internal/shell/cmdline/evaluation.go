package cmdline

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates some strings a second time: array subscripts and
// arithmetic (in $((…)), ((…)), let, [[ -eq ]], declare -i) expand command
// substitutions found in a variable's value, and declare parses a quoted
// assignment again. A program can hide there:
//
//	x='a[$(rm -rf ~)]'; (( x ))
//
// The analysis cannot follow values, so a command that both evaluates
// something again and uses a value not written plainly in it (a command
// substitution, read, a literal that holds "$(" or a backquote) is
// unknowable. Plain arithmetic on plain values stays knowable.

// dangerousVars change which program a name runs, or run code of their
// own, when a command sets them.
var dangerousVars = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true,
	"PS4": true, "PROMPT_COMMAND": true, "BASH_LOADABLES_PATH": true, "IFS": true,
}

// setVar notes a variable the command sets.
func (s *scope) setVar(name string) {
	if dangerousVars[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "BASH_FUNC_") {
		s.unknowable("it sets %s, which changes what runs", name)
	}
}

// arith notes an arithmetic context. Only one that refers to a variable
// counts: evaluating literal numbers cannot run anything.
func (s *scope) arith(what string, expr syntax.Node) {
	if s.evalContext == "" && expr != nil && mentionsVar(expr) {
		s.evalContext = what
	}
}

func (s *scope) runtime(what string) {
	if s.runtimeValue == "" {
		s.runtimeValue = what
	}
}

// checkEvaluation applies the rule above once the whole script is seen.
func (s *scope) checkEvaluation() {
	if s.evalContext == "" {
		return
	}
	switch {
	case s.runtimeValue != "":
		s.unknowable("it combines %s with %s: bash evaluates subscripts and arithmetic again, so a value not written in the command could run a program", s.evalContext, s.runtimeValue)
	case s.hiddenCode:
		s.unknowable("it combines %s with a quoted $( or backquote, which bash could run when it evaluates the value again", s.evalContext)
	}
}

// assign notes a variable assignment (a=b, a[i]=b, declare a=b).
func (s *scope) assign(a *syntax.Assign) {
	if a.Name != nil && !a.Naked {
		s.setVar(a.Name.Value)
	}
	if a.Index != nil {
		s.arith("an array subscript", a.Index)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				s.arith("an array subscript", e.Index)
			}
		}
	}
}

// decl examines declare, local, export, readonly, typeset and nameref.
func (s *scope) decl(d *syntax.DeclClause) {
	if d.Variant != nil && d.Variant.Value == "nameref" {
		s.unknowable("a nameref can set any variable, PATH included")
	}
	for _, a := range d.Args {
		if !a.Naked || a.Name != nil {
			continue
		}
		v, ok := staticWord(a.Value)
		switch {
		case !ok:
			s.unknowable("%s is given %s, known only when it runs", d.Variant.Value, source(s.src, a.Value))
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			if strings.ContainsRune(v, 'n') {
				s.unknowable("a nameref (%s -n) can set any variable, PATH included", d.Variant.Value)
			}
			if strings.ContainsRune(v, 'i') {
				s.evalContext = d.Variant.Value + " -i"
			}
		case strings.Contains(v, "="):
			// A quoted assignment is parsed again by declare.
			s.setVar(v[:strings.Index(v, "=")])
			s.evalContext = "a quoted assignment to " + d.Variant.Value
		}
	}
}

// param examines a parameter expansion.
func (s *scope) param(p *syntax.ParamExp) {
	if p.Excl && p.Names == 0 && p.Index == nil {
		s.unknowable("the indirect expansion %s evaluates a variable's value as a name, which can run a program", source(s.src, p))
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Exp.Word.Lit() == "P" {
		s.unknowable("the prompt expansion %s runs command substitutions found in a value", source(s.src, p))
	}
	if p.Index != nil {
		s.arith("an array subscript", p.Index)
	}
	if p.Slice != nil {
		s.arith("a substring expansion", p.Slice.Offset)
		s.arith("a substring expansion", p.Slice.Length)
	}
}

// mentionsVar reports whether an arithmetic expression refers to a
// variable (a bare name or an expansion) rather than only to numbers.
func mentionsVar(expr syntax.Node) bool {
	found := false
	syntax.Walk(expr, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
			found = true
		case *syntax.Word:
			if lit := n.Lit(); lit != "" && !isNumber(lit) && lit != "@" && lit != "*" {
				found = true
			}
		}
		return !found
	})
	return found
}

// isNumber reports whether s is an arithmetic constant: decimal, 0x hex,
// octal or base#digits.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '#' || r == '_' || r == '@') {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}
