package cmdline

import (
	"fmt"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Options are what the allow-list needs to know about the project.
type Options struct {
	// Trusted lets the project's test runners run without asking.
	Trusted bool
	// Inside reports whether a path, relative to the working folder or
	// absolute, lies inside the workspace. Nil treats every path as outside.
	Inside func(path string) bool
}

// Allowed is the allow-list's verdict on a command line.
type Allowed struct {
	// OK is set when the command may run without asking.
	OK bool
	// ReadOnly is set when it only reads: plan mode lets these run, and
	// not the test runners a trusted project may run.
	ReadOnly bool
	// Run is the command line to run: the one given, hardened where a
	// program needs it (git runs with its external helpers turned off).
	Run string
	// Why says, when OK is not set, why the command is not on the list.
	Why string
}

// AllowList decides whether the command is one of the forms that run
// without asking: a list or pipeline of read-only programs (git status,
// diff, log and show; ls, rg, grep, find, cat, head, tail, wc, pwd, echo)
// whose every word is plain text, that writes no file and reads nothing
// outside the workspace; or, in a trusted project, its test runner.
//
// Plain text means no variable, substitution, glob, brace or ~: the
// shell would otherwise turn a harmless-looking word into options or
// paths nobody saw (`rg $X` with X="--pre=./evil").
//
// The list checks itself against its examples first (BuiltinProblems):
// should one fail, it lets nothing through.
func (a *Analysis) AllowList(o Options) Allowed {
	if bad := BuiltinProblems(); len(bad) > 0 {
		return Allowed{Why: "the built-in allow-list fails its own examples (" + strings.Join(bad, "; ") + "), so every command asks"}
	}
	return a.allowList(o)
}

func (a *Analysis) allowList(o Options) Allowed {
	if a.err == errNotParsed {
		return Allowed{Why: a.Unknowable}
	}
	if a.err != nil || a.file == nil {
		return Allowed{Why: "it could not be parsed"}
	}
	if a.Unknowable != "" {
		return Allowed{Why: "what it runs cannot be known beforehand: " + a.Unknowable}
	}
	c := &allowCheck{src: a.Command, opts: o, readOnly: true}
	if len(a.file.Stmts) == 0 {
		return Allowed{Why: "it is empty"}
	}
	for _, st := range a.file.Stmts {
		if !c.stmt(st) {
			return Allowed{Why: c.why}
		}
	}
	return Allowed{OK: true, ReadOnly: c.readOnly, Run: c.rewrite()}
}

// allowCheck walks a command line, accepting only the shapes the
// allow-list knows.
type allowCheck struct {
	src      string
	opts     Options
	why      string
	readOnly bool
	// inserts are text to add at byte offsets of src (git's hardening).
	inserts []insert
}

type insert struct {
	at   int
	text string
}

func (c *allowCheck) fail(format string, args ...any) bool {
	c.why = fmt.Sprintf(format, args...)
	return false
}

func (c *allowCheck) stmt(st *syntax.Stmt) bool {
	if st.Background || st.Coprocess || st.Disown {
		return c.fail("it starts something in the background")
	}
	for _, r := range st.Redirs {
		if !c.redirect(r) {
			return false
		}
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		return c.call(cmd)
	case *syntax.BinaryCmd:
		return c.stmt(cmd.X) && c.stmt(cmd.Y)
	case *syntax.Subshell:
		return c.stmts(cmd.Stmts)
	case *syntax.Block:
		return c.stmts(cmd.Stmts)
	case nil:
		return true
	}
	return c.fail("it uses %s, which the allow-list does not cover", describe(st.Cmd))
}

func (c *allowCheck) stmts(list []*syntax.Stmt) bool {
	for _, st := range list {
		if !c.stmt(st) {
			return false
		}
	}
	return true
}

// redirect accepts reading a workspace file, here-documents of plain text,
// duplicating a descriptor (2>&1) and discarding to /dev/null; writing a
// file is not read-only.
func (c *allowCheck) redirect(r *syntax.Redirect) bool {
	if r.N != nil && !isDigits(r.N.Value) {
		return c.fail("it redirects to a descriptor held in a variable")
	}
	word := ""
	if r.Word != nil {
		v, ok := staticWord(r.Word)
		if !ok || expands(r.Word) != "" {
			return c.fail("a redirection target is known only when it runs")
		}
		word = v
	}
	switch r.Op {
	case syntax.DplIn, syntax.DplOut:
		if isDigits(word) || word == "-" {
			return true
		}
		if word == "/dev/null" {
			return true
		}
		return c.fail("it writes its output to the file %s", word)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		if word == "/dev/null" {
			return true
		}
		return c.fail("it writes its output to the file %s", word)
	case syntax.RdrIn:
		if !c.inside(word) {
			return c.fail("it reads %s, which is outside the workspace", word)
		}
		return true
	case syntax.Hdoc, syntax.DashHdoc:
		if _, ok := staticWord(r.Hdoc); r.Hdoc != nil && !ok {
			return c.fail("its here-document expands variables or commands")
		}
		return true
	case syntax.WordHdoc:
		return true
	}
	return c.fail("it uses the redirection %s", r.Op)
}

func (c *allowCheck) call(ce *syntax.CallExpr) bool {
	if len(ce.Assigns) > 0 {
		return c.fail("it sets variables for the command, which can change what a program does")
	}
	if len(ce.Args) == 0 {
		return true
	}
	argv := make([]string, len(ce.Args))
	for i, w := range ce.Args {
		v, ok := staticWord(w)
		if !ok {
			return c.fail("%s is known only when the command runs", source(c.src, w))
		}
		if why := expands(w); why != "" {
			return c.fail("%s has %s, which the shell expands", source(c.src, w), why)
		}
		argv[i] = v
	}
	name := argv[0]
	if rule, ok := readOnlyRules[name]; ok {
		if why := rule(argv); why != "" {
			return c.fail("%s", why)
		}
		if name == "git" {
			c.hardenGit(ce, argv)
		}
		return c.paths(argv)
	}
	if rule, ok := testRunners[name]; ok {
		why := rule(argv)
		if why == notTestRun {
			return c.fail("%s is not on the list of read-only commands", name)
		}
		if why != "" {
			return c.fail("%s", why)
		}
		if !c.opts.Trusted {
			return c.fail("%s runs the project's own code, so it asks unless the project is trusted (tether trust)", strings.Join(argv[:min(len(argv), 2)], " "))
		}
		c.readOnly = false
		return c.paths(argv)
	}
	return c.fail("%s is not on the list of read-only commands", name)
}

// paths checks every word that could name a file: plain arguments, the
// value of --opt=value, and a path glued to a short option (-f/etc/x).
// Patterns are checked too, as if they were paths: a pattern such as
// "^/etc" then asks, which is the safe way to be wrong.
func (c *allowCheck) paths(argv []string) bool {
	if noPaths[argv[0]] {
		return true
	}
	for _, arg := range argv[1:] {
		p := arg
		switch {
		case arg == "-" || arg == "--" || arg == "":
			continue
		case strings.HasPrefix(arg, "-"):
			if _, v, ok := strings.Cut(arg, "="); ok {
				p = v
			} else if i := strings.IndexByte(arg, '/'); i > 0 && !strings.HasPrefix(arg, "--") {
				p = arg[i:]
			} else {
				continue
			}
		}
		if p != "" && !c.inside(p) {
			return c.fail("%s reads %s, which is outside the workspace", argv[0], p)
		}
	}
	return true
}

func (c *allowCheck) inside(p string) bool {
	return c.opts.Inside != nil && c.opts.Inside(p)
}

// hardenGit makes git ignore the helpers a repository's own configuration
// can name (an fsmonitor hook, external diff and textconv drivers, a
// signature verifier), since a cloned repository is not trusted code.
func (c *allowCheck) hardenGit(ce *syntax.CallExpr, argv []string) {
	c.inserts = append(c.inserts, insert{int(ce.Args[0].End().Offset()), " -c core.fsmonitor= -c log.showSignature=false"})
	if argv[1] != "status" {
		c.inserts = append(c.inserts, insert{int(ce.Args[1].End().Offset()), " --no-ext-diff --no-textconv"})
	}
}

// rewrite applies the insertions to the command line.
func (c *allowCheck) rewrite() string {
	if len(c.inserts) == 0 {
		return c.src
	}
	sort.Slice(c.inserts, func(i, j int) bool { return c.inserts[i].at > c.inserts[j].at })
	out := c.src
	for _, in := range c.inserts {
		out = out[:in.at] + in.text + out[in.at:]
	}
	return out
}

// describe names a compound command for a message.
func describe(cmd syntax.Command) string {
	switch cmd.(type) {
	case *syntax.IfClause:
		return "an if"
	case *syntax.WhileClause, *syntax.ForClause:
		return "a loop"
	case *syntax.CaseClause:
		return "a case"
	case *syntax.FuncDecl:
		return "a function definition"
	case *syntax.DeclClause:
		return "a variable declaration"
	case *syntax.ArithmCmd, *syntax.LetClause:
		return "arithmetic"
	case *syntax.TestClause:
		return "a [[ ]] test"
	case *syntax.TimeClause:
		return "time"
	}
	return "a compound command"
}
