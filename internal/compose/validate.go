package compose

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
)

// The program is parsed inside this wrapper, so that a top-level await
// and return are legal, and run inside the same one. The header ends with
// a newline: the program's own lines are one down, its columns unchanged.
const (
	wrapHead = `(async function () {"use strict";` + "\n"
	wrapTail = "\n})"
)

// reserved prefixes the names only the wrapper and the prelude use.
const reserved = "__tether"

// Diagnostic is one reason a program is not run, at a 1-based line and
// column of the program as written.
type Diagnostic struct {
	Line, Column int
	Message      string
}

func (d Diagnostic) String() string { return fmt.Sprintf("%d:%d: %s", d.Line, d.Column, d.Message) }

// ValidationError lists why a program was refused before it ran.
type ValidationError struct{ Diagnostics []Diagnostic }

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}

// maxDiagnostics bounds how many reasons one refusal lists.
const maxDiagnostics = 10

// allowedGlobals are the names a program may use without declaring them.
var allowedGlobals = map[string]bool{
	"tools": true, "search": true, "console": true,
	"JSON": true, "Math": true, "Object": true, "Array": true, "String": true,
	"Number": true, "Boolean": true, "Promise": true, "Date": true, "Map": true, "Set": true,
	"Error": true, "TypeError": true, "RangeError": true,
	"parseInt": true, "parseFloat": true, "isNaN": true, "isFinite": true,
	"encodeURIComponent": true, "decodeURIComponent": true,
	"undefined": true, "NaN": true, "Infinity": true,
}

// constructible are the built-ins a program may call with new.
var constructible = map[string]bool{
	"Error": true, "TypeError": true, "RangeError": true, "Map": true, "Set": true, "Date": true,
}

// forbiddenNames may not appear as a name at all, declared or not: they
// reach code generation, timers, reflection or the engine's own objects.
var forbiddenNames = map[string]string{
	"eval":                 "eval is not available: a program cannot run code it builds",
	"Function":             "Function is not available: a program cannot run code it builds",
	"globalThis":           "globalThis is not available",
	"arguments":            "arguments is not available; name the parameters",
	"setTimeout":           "timers are not available; await the tool calls instead",
	"setInterval":          "timers are not available; await the tool calls instead",
	"setImmediate":         "timers are not available; await the tool calls instead",
	"clearTimeout":         "timers are not available",
	"clearInterval":        "timers are not available",
	"queueMicrotask":       "queueMicrotask is not available",
	"require":              "imports are not available: the program has only tools, search, console and the built-ins",
	"Proxy":                "Proxy is not available",
	"Reflect":              "Reflect is not available",
	"Symbol":               "Symbol is not available",
	"WeakRef":              "WeakRef is not available",
	"FinalizationRegistry": "FinalizationRegistry is not available",
	"InternalError":        "InternalError is not available",
}

// forbiddenProps may not be named as a property: they lead from a value
// to its constructor, and from there to code generation.
var forbiddenProps = map[string]bool{
	"constructor": true, "prototype": true, "__proto__": true,
	"__defineGetter__": true, "__defineSetter__": true, "__lookupGetter__": true, "__lookupSetter__": true,
	"caller": true, "callee": true,
}

// Checked is a program that passed validation, ready to run.
type Checked struct {
	// Source is the program as written.
	Source string
	// body is the program with a guard at the top of every catch block,
	// which rethrows a limit or a cancellation so no catch gets past one,
	// and a step count at the top of every loop body and function body.
	body string
	// shifts maps a column of body back to the program as written: per
	// line, the text spliced in, in order (splices hold no line break, so
	// lines stay where they were).
	shifts map[int][]splice
}

// splice is text put into the program on one line, at column col of the
// program as written, n characters long. Columns count characters from 1,
// as the engine's stack traces do.
type splice struct{ col, n int }

// Position maps a line and column of the running body to the program as
// written. A column inside spliced text is the column it was spliced at.
func (p *Checked) Position(line, col int) (int, int) {
	shift := 0
	for _, sp := range p.shifts[line] {
		at := sp.col + shift // where the splice starts in the body
		switch {
		case col >= at+sp.n:
			shift += sp.n
		case col >= at:
			return line, sp.col
		default:
			return line, col - shift
		}
	}
	return line, col - shift
}

// Validate parses src as a program of compose's subset and refuses it,
// with every reason's line and column, unless each construct it uses is
// one the subset allows: anything not named below is refused.
func Validate(src string) (*Checked, error) {
	wrapped := wrapHead + src + wrapTail
	prog, err := parser.ParseFile(nil, "program.js", wrapped, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, parseError(err)
	}
	v := &validator{file: prog.File, declared: map[string]bool{}}
	fn := wrapperFunction(prog, len(wrapped))
	if fn == nil {
		// The program closed the wrapper and went on outside it.
		v.fail(file.Idx(len(wrapHead)+1), "the program must be statements only; it cannot close the function it runs in")
	} else {
		v.stmts(fn.Body.List)
	}
	v.checkReferences()
	if len(v.diags) > 0 {
		sort.SliceStable(v.diags, func(i, j int) bool {
			a, b := v.diags[i], v.diags[j]
			return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
		})
		if len(v.diags) > maxDiagnostics {
			v.diags = v.diags[:maxDiagnostics]
		}
		return nil, &ValidationError{Diagnostics: v.diags}
	}
	body, shifts := v.splice(src)
	return &Checked{Source: src, body: body, shifts: shifts}, nil
}

// wrapperFunction is the wrapper's function when the parse is exactly
// the wrapper around statements, else nil.
func wrapperFunction(prog *ast.Program, n int) *ast.FunctionLiteral {
	if len(prog.Body) != 1 {
		return nil
	}
	es, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	fn, ok := es.Expression.(*ast.FunctionLiteral)
	if !ok || !fn.Async || int(fn.Body.RightBrace) != n-1 {
		return nil
	}
	return fn
}

// parseError turns the parser's errors into diagnostics of the program
// as written.
func parseError(err error) error {
	var out []Diagnostic
	add := func(pos file.Position, msg string) {
		line, col := pos.Line-1, pos.Column
		if line < 1 {
			line, col = 1, 1
		}
		out = append(out, Diagnostic{Line: line, Column: col, Message: "syntax error: " + explainSyntax(msg)})
	}
	switch e := err.(type) {
	case parser.ErrorList:
		for _, pe := range e {
			add(pe.Position, pe.Message)
			if len(out) == maxDiagnostics {
				break
			}
		}
	case *parser.Error:
		add(e.Position, e.Message)
	default:
		out = append(out, Diagnostic{Line: 1, Column: 1, Message: err.Error()})
	}
	return &ValidationError{Diagnostics: out}
}

// explainSyntax adds advice to the parser's messages for the constructs
// a model most often reaches for.
func explainSyntax(msg string) string {
	if strings.Contains(msg, "import") {
		return msg + " (imports are not available)"
	}
	return msg
}

type validator struct {
	file  *file.File
	diags []Diagnostic

	declared map[string]bool
	refs     []*ast.Identifier
	catches  []*ast.CatchStatement
	throws   []*ast.ThrowStatement
	// loopBodies and funcBodies are where a step is counted: each
	// iteration of a loop, each call of a function.
	loopBodies []ast.Statement
	funcBodies []ast.ConciseBody
}

func (v *validator) fail(idx file.Idx, format string, args ...any) {
	pos := v.file.Position(int(idx) - v.file.Base())
	line, col := pos.Line-1, pos.Column
	if line < 1 {
		line, col = 1, 1
	}
	v.diags = append(v.diags, Diagnostic{Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) stmts(list []ast.Statement) {
	for _, s := range list {
		v.stmt(s)
	}
}

func (v *validator) stmt(s ast.Statement) {
	switch s := s.(type) {
	case nil:
	case *ast.BlockStatement:
		v.stmts(s.List)
	case *ast.EmptyStatement:
	case *ast.ExpressionStatement:
		v.expr(s.Expression)
	case *ast.IfStatement:
		v.expr(s.Test)
		v.stmt(s.Consequent)
		v.stmt(s.Alternate)
	case *ast.ForStatement:
		switch init := s.Initializer.(type) {
		case nil:
		case *ast.ForLoopInitializerExpression:
			v.expr(init.Expression)
		case *ast.ForLoopInitializerLexicalDecl:
			v.bindings(init.LexicalDeclaration.List)
		case *ast.ForLoopInitializerVarDeclList:
			v.fail(init.Var, "var is not in compose's subset; use let or const")
		default:
			v.fail(s.For, "this for loop form is not in compose's subset")
		}
		v.expr(s.Test)
		v.expr(s.Update)
		v.loop(s.Body)
	case *ast.ForOfStatement:
		v.forInto(s.Into, s.For)
		v.expr(s.Source)
		v.loop(s.Body)
	case *ast.ForInStatement:
		v.forInto(s.Into, s.For)
		v.expr(s.Source)
		v.loop(s.Body)
	case *ast.WhileStatement:
		v.expr(s.Test)
		v.loop(s.Body)
	case *ast.DoWhileStatement:
		v.loop(s.Body)
		v.expr(s.Test)
	case *ast.BranchStatement:
		if s.Label != nil {
			v.fail(s.Idx, "labels are not in compose's subset")
		}
	case *ast.ReturnStatement:
		v.expr(s.Argument)
	case *ast.ThrowStatement:
		v.throws = append(v.throws, s)
		v.expr(s.Argument)
	case *ast.TryStatement:
		v.stmts(s.Body.List)
		if s.Finally != nil {
			v.fail(s.Finally.LeftBrace, "finally is not in compose's subset; use try/catch")
		}
		if s.Catch != nil {
			v.catches = append(v.catches, s.Catch)
			switch p := s.Catch.Parameter.(type) {
			case nil:
			case *ast.Identifier:
				v.declare(p)
			default:
				v.fail(p.Idx0(), "destructuring is not in compose's subset; catch (e) and read its fields")
			}
			v.stmts(s.Catch.Body.List)
		}
	case *ast.SwitchStatement:
		v.expr(s.Discriminant)
		for _, c := range s.Body {
			v.expr(c.Test)
			v.stmts(c.Consequent)
		}
	case *ast.LexicalDeclaration:
		v.bindings(s.List)
	case *ast.VariableStatement:
		v.fail(s.Var, "var is not in compose's subset; use let or const")
	case *ast.FunctionDeclaration:
		v.function(s.Function)
	case *ast.ClassDeclaration:
		v.fail(s.Class.Class, "classes are not in compose's subset; use plain objects and functions")
	case *ast.WithStatement:
		v.fail(s.With, "with is not in compose's subset")
	case *ast.LabelledStatement:
		v.fail(s.Label.Idx, "labels are not in compose's subset")
	case *ast.DebuggerStatement:
		v.fail(s.Debugger, "debugger is not in compose's subset")
	default:
		v.fail(s.Idx0(), "this statement is not in compose's subset")
	}
}

func (v *validator) forInto(into ast.ForInto, at file.Idx) {
	switch f := into.(type) {
	case *ast.ForDeclaration:
		id, ok := f.Target.(*ast.Identifier)
		if !ok {
			v.fail(f.Target.Idx0(), "destructuring is not in compose's subset; bind one name and read its fields")
			return
		}
		v.declare(id)
	case *ast.ForIntoExpression:
		v.assignTarget(f.Expression)
	case *ast.ForIntoVar:
		v.fail(at, "var is not in compose's subset; use let or const")
	default:
		v.fail(at, "this loop form is not in compose's subset")
	}
}

func (v *validator) bindings(list []*ast.Binding) {
	for _, b := range list {
		id, ok := b.Target.(*ast.Identifier)
		if !ok {
			v.fail(b.Target.Idx0(), "destructuring is not in compose's subset; bind one name and read its fields")
			continue
		}
		v.declare(id)
		v.expr(b.Initializer)
	}
}

func (v *validator) declare(id *ast.Identifier) {
	name := id.Name.String()
	if v.badName(id) {
		return
	}
	v.declared[name] = true
}

// badName refuses the names nothing may use, and reports whether it did.
func (v *validator) badName(id *ast.Identifier) bool {
	name := id.Name.String()
	if why, bad := forbiddenNames[name]; bad {
		v.fail(id.Idx, "%s", why)
		return true
	}
	if strings.HasPrefix(name, reserved) {
		v.fail(id.Idx, "names starting with %s are reserved", reserved)
		return true
	}
	return false
}

func (v *validator) function(f *ast.FunctionLiteral) {
	if f.Generator {
		v.fail(f.Function, "generators are not in compose's subset")
		return
	}
	if f.Name != nil {
		v.declare(f.Name)
	}
	v.params(f.ParameterList)
	v.funcBodies = append(v.funcBodies, f.Body)
	v.stmts(f.Body.List)
}

// loop checks a loop's body and marks it for a step count.
func (v *validator) loop(body ast.Statement) {
	v.loopBodies = append(v.loopBodies, body)
	v.stmt(body)
}

func (v *validator) params(p *ast.ParameterList) {
	if p == nil {
		return
	}
	if p.Rest != nil {
		v.fail(p.Rest.Idx0(), "rest parameters are not in compose's subset; pass an array")
	}
	v.bindings(p.List)
}

func (v *validator) exprs(list []ast.Expression) {
	for _, e := range list {
		v.expr(e)
	}
}

func (v *validator) args(list []ast.Expression) {
	for _, e := range list {
		if s, ok := e.(*ast.SpreadElement); ok {
			v.fail(s.Idx0()-3, "spread is not in compose's subset; pass the values one by one, or an array")
			continue
		}
		v.expr(e)
	}
}

func (v *validator) expr(e ast.Expression) {
	switch e := e.(type) {
	case nil:
	case *ast.Identifier:
		if !v.badName(e) {
			v.refs = append(v.refs, e)
		}
	case *ast.NumberLiteral, *ast.StringLiteral, *ast.BooleanLiteral, *ast.NullLiteral, *ast.RegExpLiteral:
	case *ast.ArrayLiteral:
		v.args(e.Value)
	case *ast.ObjectLiteral:
		for _, p := range e.Value {
			v.property(p)
		}
	case *ast.DotExpression:
		v.expr(e.Left)
		v.propName(e.Identifier.Name.String(), e.Identifier.Idx)
	case *ast.BracketExpression:
		v.expr(e.Left)
		if s, ok := e.Member.(*ast.StringLiteral); ok {
			v.propName(s.Value.String(), s.Idx)
		}
		v.expr(e.Member)
	case *ast.CallExpression:
		v.expr(e.Callee)
		v.args(e.ArgumentList)
	case *ast.NewExpression:
		id, ok := e.Callee.(*ast.Identifier)
		if !ok || !constructible[id.Name.String()] {
			v.fail(e.New, "new is only for %s in compose's subset", strings.Join(sortedKeys(constructible), ", "))
		}
		v.expr(e.Callee)
		v.args(e.ArgumentList)
	case *ast.AssignExpression:
		v.assignTarget(e.Left)
		v.expr(e.Right)
	case *ast.BinaryExpression:
		v.expr(e.Left)
		v.expr(e.Right)
	case *ast.UnaryExpression:
		v.expr(e.Operand)
	case *ast.ConditionalExpression:
		v.expr(e.Test)
		v.expr(e.Consequent)
		v.expr(e.Alternate)
	case *ast.SequenceExpression:
		v.exprs(e.Sequence)
	case *ast.FunctionLiteral:
		v.function(e)
	case *ast.ArrowFunctionLiteral:
		v.params(e.ParameterList)
		v.funcBodies = append(v.funcBodies, e.Body)
		switch b := e.Body.(type) {
		case *ast.BlockStatement:
			v.stmts(b.List)
		case *ast.ExpressionBody:
			v.expr(b.Expression)
		}
	case *ast.AwaitExpression:
		v.expr(e.Argument)
	case *ast.OptionalChain:
		v.expr(e.Expression)
	case *ast.Optional:
		v.expr(e.Expression)
	case *ast.TemplateLiteral:
		v.fail(e.OpenQuote, "template literals are not in compose's subset; join strings with +")
	case *ast.SpreadElement:
		v.fail(e.Idx0()-3, "spread is not in compose's subset")
	case *ast.ObjectPattern, *ast.ArrayPattern:
		v.fail(e.Idx0(), "destructuring is not in compose's subset; bind one name and read its fields")
	case *ast.ClassLiteral:
		v.fail(e.Class, "classes are not in compose's subset; use plain objects and functions")
	case *ast.YieldExpression:
		v.fail(e.Yield, "generators are not in compose's subset")
	case *ast.ThisExpression:
		v.fail(e.Idx, "this is not in compose's subset; pass values as arguments")
	case *ast.SuperExpression:
		v.fail(e.Idx, "super is not in compose's subset")
	case *ast.MetaProperty:
		v.fail(e.Meta.Idx, "%s.%s is not in compose's subset", e.Meta.Name, e.Property.Name)
	default:
		v.fail(e.Idx0(), "this expression is not in compose's subset")
	}
}

// assignTarget allows a name or a property as what is assigned to; a
// pattern is destructuring.
func (v *validator) assignTarget(e ast.Expression) {
	switch e.(type) {
	case *ast.Identifier, *ast.DotExpression, *ast.BracketExpression:
		v.expr(e)
	default:
		v.fail(e.Idx0(), "destructuring is not in compose's subset; assign one name or property at a time")
	}
}

func (v *validator) property(p ast.Property) {
	switch p := p.(type) {
	case *ast.PropertyShort:
		if p.Initializer != nil {
			v.fail(p.Name.Idx, "destructuring is not in compose's subset")
		}
		v.expr(&p.Name)
	case *ast.PropertyKeyed:
		if p.Kind != ast.PropertyKindValue && p.Kind != ast.PropertyKindMethod {
			v.fail(p.Idx0(), "getters and setters are not in compose's subset")
		}
		if p.Computed {
			v.expr(p.Key)
		} else if s, ok := p.Key.(*ast.StringLiteral); ok {
			v.propName(s.Value.String(), s.Idx)
		}
		v.expr(p.Value)
	case *ast.SpreadElement:
		v.fail(p.Idx0()-3, "spread is not in compose's subset; use Object.assign")
	default:
		v.fail(p.Idx0(), "this property form is not in compose's subset")
	}
}

func (v *validator) propName(name string, at file.Idx) {
	if forbiddenProps[name] {
		v.fail(at, "the property %s is not available in compose's subset", name)
	}
}

// checkReferences refuses names the program uses but neither declares
// nor is given.
func (v *validator) checkReferences() {
	seen := map[string]bool{}
	for _, id := range v.refs {
		name := id.Name.String()
		if v.declared[name] || allowedGlobals[name] || seen[name] {
			continue
		}
		seen[name] = true
		v.fail(id.Idx, "%s is not defined: a program has only its own names, tools, search, console and %s",
			name, "the built-ins JSON, Math, Object, Array, String, Number, Boolean, Promise, Date, Map, Set and the Error types")
	}
}

// The text spliced into a program: the step count, and the guard. The
// count is a variable of the function the program runs in (see stepsVar),
// so counting a step costs a decrement and a comparison, not a call.
const (
	stepsVar  = reserved + "_n"
	stepTest  = "--" + stepsVar + "<0&&" + reserved + "_over()"
	stepCall  = stepTest + ";"
	guardCall = reserved + "_guard("
)

// splice puts into the program what it runs with: a guard call at the top
// of every catch block, so a limit or a cancellation caught by the program
// is thrown on (a catch without a binding gets one); a marker around what
// a throw statement throws, so the guard can tell a program's own throw
// null from the null the engine throws when memory runs out; and a step
// count at the top of every loop body and function body, so a busy loop
// stops after a bounded number of steps whatever it catches. It returns
// the body and, per line, what was spliced where.
func (v *validator) splice(src string) (string, map[int][]splice) {
	// An insert is text put in at offset at. A pair of them wraps a span
	// [open, close): where several land on one offset, closings come
	// before openings, inner spans close first and outer spans open first,
	// so the pairs nest as the spans do.
	type insert struct {
		at      int
		text    string
		closing bool
		other   int // the span's other end: its start for a closing, its end for an opening
	}
	var ins []insert
	point := func(at int, text string) { ins = append(ins, insert{at: at, text: text, other: at}) }
	wrap := func(open, close int, before, after string) {
		ins = append(ins, insert{at: open, text: before, other: close}, insert{at: close, text: after, closing: true, other: open})
	}
	base := v.file.Base() + len(wrapHead) // file.Idx of the program's first byte
	off := func(idx file.Idx) int { return int(idx) - base }
	for _, c := range v.catches {
		brace := off(c.Body.LeftBrace) + 1
		if id, ok := c.Parameter.(*ast.Identifier); ok {
			point(brace, guardCall+id.Name.String()+");")
			continue
		}
		point(off(c.Catch)+len(token.CATCH.String()), " ("+reserved+"_e)")
		point(brace, guardCall+reserved+"_e);")
	}
	for _, t := range v.throws {
		wrap(off(t.Argument.Idx0()), off(t.Argument.Idx1()), reserved+"_thrown(", ")")
	}
	for _, body := range v.loopBodies {
		if b, ok := body.(*ast.BlockStatement); ok {
			point(off(b.LeftBrace)+1, stepCall)
			continue
		}
		// A single statement becomes a block that counts first.
		wrap(off(body.Idx0()), off(body.Idx1()), "{"+stepCall, "}")
	}
	for _, body := range v.funcBodies {
		switch b := body.(type) {
		case *ast.BlockStatement:
			point(off(b.LeftBrace)+1, stepCall)
		case *ast.ExpressionBody:
			wrap(off(b.Expression.Idx0()), off(b.Expression.Idx1()), "("+stepTest+", ", ")")
		}
	}
	sort.SliceStable(ins, func(i, j int) bool {
		a, b := ins[i], ins[j]
		switch {
		case a.at != b.at:
			return a.at < b.at
		case a.closing != b.closing:
			return a.closing
		}
		return a.other > b.other
	})
	var b strings.Builder
	shifts := map[int][]splice{}
	last, line, lineStart := 0, 1, 0
	for _, in := range ins {
		chunk := src[last:in.at]
		if n := strings.Count(chunk, "\n"); n > 0 {
			line += n
			lineStart = last + strings.LastIndexByte(chunk, '\n') + 1
		}
		b.WriteString(chunk)
		b.WriteString(in.text)
		col := utf8.RuneCountInString(src[lineStart:in.at]) + 1
		shifts[line] = append(shifts[line], splice{col: col, n: utf8.RuneCountInString(in.text)})
		last = in.at
	}
	b.WriteString(src[last:])
	return b.String(), shifts
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
