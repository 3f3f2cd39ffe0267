// Package cmdline reads a shell command line without running it: which
// programs it would run, whether that can be known at all, and whether it
// is one of the read-only forms that may run without asking.
//
// The programs are what approvals are about: the user is asked per
// program, and an "always" answer is saved per program. Anything that
// would let a program run without appearing here is a hole, so where the
// analysis cannot be sure it says so (Unknowable) and the command always
// asks. This is a gate in front of an approval, not a sandbox: the
// programs it lets through can still do whatever they do.
package cmdline

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds nested shells (bash -c "bash -c '…'"), so a crafted
// command cannot make the analysis recurse without end.
const maxDepth = 8

// Analysis is what a command line would run.
type Analysis struct {
	// Command is the command line analysed.
	Command string
	// Programs are the programs it would run, each once, named as written ("rm", "./build.sh", "/usr/bin/env").
	// Shell builtins that run nothing and change nothing outside the shell
	// (cd, echo, test, …) and transparent wrappers (env, nice, timeout,
	// xargs, …) are left out; what the wrappers run is in.
	Programs []string
	// Invocations are the programs with their subcommands (see
	// Invocation), each once: what approvals and saved rules are about.
	Invocations []Invocation
	// Unknowable, when set, says why the programs cannot all be known
	// before the command runs. Such a command always asks.
	Unknowable string
	// Network lists what the command evidently reads from the network
	// ("curl", "git fetch"): its output is content from outside.
	Network []string
	// Detaches is set when the command may start processes meant to
	// outlive it (setsid, nohup, disown, a daemon launcher), which leave
	// its process group and must be looked for when it ends.
	Detaches bool

	file *syntax.File
	err  error
}

// Unparsed is the analysis of a command line in a language Tether does
// not parse (PowerShell): its programs cannot be known, so it always asks,
// and nothing in it is on the allow-list.
func Unparsed(command, why string) *Analysis {
	return &Analysis{Command: command, Unknowable: why, err: errNotParsed}
}

var errNotParsed = errors.New("not parsed")

// Analyze parses a command line as bash and finds the programs it would run.
func Analyze(command string) *Analysis {
	a := &Analysis{Command: command}
	f := &finder{a: a, seen: map[string]bool{}}
	a.file, a.err = f.script(command, 0)
	if a.Unknowable != "" {
		a.Detaches = true
	}
	return a
}

// parse reads a command line as bash.
func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// finder walks the syntax tree of a command line and of every script
// nested in it (bash -c '…', trap '…').
type finder struct {
	a    *Analysis
	seen map[string]bool
}

func (f *finder) program(name string, args ...*syntax.Word) {
	if !f.seen[name] {
		f.seen[name] = true
		f.a.Programs = append(f.a.Programs, name)
	}
	f.addInvocation(invocation(name, args))
}

func (f *finder) unknowable(format string, args ...any) {
	if f.a.Unknowable == "" {
		f.a.Unknowable = fmt.Sprintf(format, args...)
	}
}

// script analyses one script: the command line, or a literal script given
// to a nested shell.
func (f *finder) script(src string, depth int) (*syntax.File, error) {
	if depth > maxDepth {
		f.unknowable("shells are nested more than %d deep", maxDepth)
		return nil, nil
	}
	file, err := parse(src)
	if err != nil {
		f.unknowable("it could not be parsed as a bash command (%v)", err)
		return nil, err
	}
	s := &scope{finder: f, src: src, depth: depth, funcs: topLevelFuncs(file)}
	s.walk(file)
	s.checkEvaluation()
	return file, nil
}

// scope is the analysis of one script: its source (for offsets) and the
// functions it defines.
type scope struct {
	*finder
	src   string
	depth int
	// funcs maps the name of each function defined unconditionally at the
	// top level to where its definition ends: a call after that point runs
	// the function, whose body is analysed where it is defined.
	funcs map[string]uint
	// unset names functions that may be removed again, which makes a later
	// call with that name run the program after all.
	unset map[string]bool

	// Facts for checkEvaluation.
	evalContext  string
	runtimeValue string
	hiddenCode   bool
}

// topLevelFuncs finds the functions defined by statements of their own at
// the top level: only those are surely defined when a later line runs.
// One defined inside an if, a loop or after && may not be, and then a call
// with its name runs the program of that name.
func topLevelFuncs(file *syntax.File) map[string]uint {
	funcs := map[string]uint{}
	for _, st := range file.Stmts {
		if fd, ok := st.Cmd.(*syntax.FuncDecl); ok && fd.Name != nil && !st.Background && !st.Negated {
			if _, dup := funcs[fd.Name.Value]; !dup {
				funcs[fd.Name.Value] = st.End().Offset()
			}
		}
	}
	return funcs
}

// isFunction reports whether a call at offset runs a function of this
// script rather than a program.
func (s *scope) isFunction(name string, at uint) bool {
	end, ok := s.funcs[name]
	return ok && at >= end && !s.unset[name]
}

// walk visits every node of the script, nested substitutions included, so
// that a command hidden in $(…), <(…), a here-document or a function body
// is found like any other.
func (s *scope) walk(file *syntax.File) {
	s.unset = unsetNames(file)
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			s.call(n)
		case *syntax.Assign:
			s.assign(n)
		case *syntax.DeclClause:
			s.decl(n)
		case *syntax.WordIter:
			if n.Name != nil {
				s.setVar(n.Name.Value)
			}
			for _, w := range n.Items {
				if _, ok := staticWord(w); !ok {
					s.runtime("a for loop over words known only when it runs")
				}
			}
		case *syntax.ParamExp:
			s.param(n)
		case *syntax.CmdSubst:
			s.runtime("a command substitution")
		case *syntax.ProcSubst:
			s.runtime("a process substitution")
		case *syntax.ArithmExp:
			s.arith("an arithmetic expansion", n.X)
		case *syntax.ArithmCmd:
			s.arith("an arithmetic command", n.X)
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				s.arith("let", x)
			}
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
				if x != nil {
					s.arith("a C-style for loop", x)
				}
			}
		case *syntax.BinaryTest:
			if isArithTest(n.Op) {
				s.arith("a numeric comparison in [[ ]]", n.X)
				s.arith("a numeric comparison in [[ ]]", n.Y)
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet && strings.Contains(source(s.src, n.X), "[") {
				s.evalContext = "[[ -v ]] with a subscript"
			}
		case *syntax.SglQuoted:
			if v, ok := staticWord(&syntax.Word{Parts: []syntax.WordPart{n}}); ok && holdsCode(v) {
				s.hiddenCode = true
			}
		case *syntax.Lit:
			if holdsCode(unescapeBare(n.Value)) {
				s.hiddenCode = true
			}
		case *syntax.Stmt:
			if n.Disown {
				s.a.Detaches = true
			}
		}
		return true
	})
}

// unsetNames finds every name given to unset anywhere in the script.
func unsetNames(file *syntax.File) map[string]bool {
	names := map[string]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 {
			return true
		}
		if name, _ := staticWord(ce.Args[0]); name == "unset" {
			for _, w := range ce.Args[1:] {
				if v, ok := staticWord(w); ok {
					names[v] = true
				}
			}
		}
		return true
	})
	return names
}

// call examines one simple command.
func (s *scope) call(ce *syntax.CallExpr) {
	if len(ce.Args) == 0 {
		return
	}
	s.command(ce.Args, false)
}

// command examines the words of a command whose first word names what
// runs. bypassFuncs is set where a function cannot be what runs (after
// `command`, `exec`, find's -exec, a wrapper program).
func (s *scope) command(args []*syntax.Word, bypassFuncs bool) {
	name, ok := staticWord(args[0])
	if !ok {
		s.unknowable("the program %s is named by an expansion, so it is only known when the command runs", source(s.src, args[0]))
		return
	}
	if why := expands(args[0]); why != "" {
		s.unknowable("the program %s is named with %s", source(s.src, args[0]), why)
		return
	}
	if name == "" {
		return
	}
	if !bypassFuncs && s.isFunction(name, args[0].Pos().Offset()) {
		return
	}
	if h, ok := lookupHandler(name); ok {
		h(s, name, args[1:])
		return
	}
	if what := networkUse(name, args[1:]); what != "" {
		s.network(what)
	}
	s.program(name, args[1:]...)
}

// rest analyses what a wrapper runs: the command in args, if any.
func (s *scope) rest(args []*syntax.Word) {
	if len(args) > 0 {
		s.command(args, true)
	}
}

// nested analyses a literal script run by a nested shell or a trap.
func (s *scope) nested(what string, w *syntax.Word) {
	text, ok := staticWord(w)
	if !ok {
		s.unknowable("%s runs %s, which is only known when the command runs", what, source(s.src, w))
		return
	}
	s.finder.script(text, s.depth+1)
}

// isArithTest reports whether a [[ ]] operator compares numbers, which
// makes bash evaluate both sides as arithmetic.
func isArithTest(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// holdsCode reports whether a literal string holds a command substitution
// that bash would run if the string were evaluated again.
func holdsCode(s string) bool {
	return strings.Contains(s, "$(") || strings.Contains(s, "`")
}
