package compose_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/compose"
)

// Every construct outside the subset is refused before anything runs,
// at its line and column in the program as written.
func TestValidatorRefuses(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		says      string
	}{
		{"import", "const a = 1;\nimport x from \"fs\"", 2, 1, "syntax error"},
		{"dynamic import", "const m = await import(\"fs\")", 1, 17, "syntax error"},
		{"require", "const fs = require(\"fs\")", 1, 12, "imports are not available"},
		{"class", "class A {}", 1, 1, "classes"},
		{"class expression", "const A = class {}", 1, 11, "classes"},
		{"generator", "function* g() {}", 1, 1, "generators"},
		{"generator expression", "const g = function* () { yield 1 }", 1, 11, "generators"},
		{"array destructuring", "const [a, b] = [1, 2]", 1, 7, "destructuring"},
		{"object destructuring", "let {a} = {a: 1}", 1, 5, "destructuring"},
		{"parameter destructuring", "const f = ({a}) => a", 1, 12, "destructuring"},
		{"assignment destructuring", "let a;\n[a] = [1]", 2, 1, "destructuring"},
		{"spread in call", "Math.max(...[1, 2])", 1, 10, "spread"},
		{"spread in array", "const a = [...[1]]", 1, 12, "spread"},
		{"spread in object", "const o = {...{a: 1}}", 1, 12, "spread"},
		{"rest parameter", "function f(...xs) {}", 1, 15, "rest parameters"},
		{"template literal", "const s = `a${1}`", 1, 11, "template literals"},
		{"finally", "try { Math.abs(1) } catch (e) {} finally {}", 1, 42, "finally"},
		{"eval", "eval(\"1\")", 1, 1, "eval"},
		{"Function", "new Function(\"return 1\")", 1, 1, "new is only for"},
		{"Function call", "Function(\"return 1\")()", 1, 1, "Function is not available"},
		{"constructor property", "const f = (() => 1).constructor", 1, 21, "constructor"},
		{"constructor by string", "const f = [][\"constructor\"]", 1, 14, "constructor"},
		{"__proto__", "const o = {}; o.__proto__ = null", 1, 17, "__proto__"},
		{"with", "with (Math) {}", 1, 1, "with"},
		{"setTimeout", "setTimeout(() => 1, 10)", 1, 1, "timers"},
		{"setInterval", "setInterval(() => 1, 10)", 1, 1, "timers"},
		{"new Promise", "await new Promise(r => r(1))", 1, 7, "new is only for"},
		{"new of anything", "const p = new Proxy({}, {})", 1, 11, "new is only for"},
		{"globalThis", "globalThis.x = 1", 1, 1, "globalThis"},
		{"var", "var x = 1", 1, 1, "var"},
		{"this", "function f() { return this }", 1, 23, "this"},
		{"getter", "const o = {get x() { return 1 }}", 1, 16, "getters"},
		{"label", "outer: for (;;) { break outer }", 1, 1, "labels"},
		{"debugger", "debugger", 1, 1, "debugger"},
		{"undeclared global", "return process.env", 1, 8, "process is not defined"},
		{"reserved prefix", "const __tether_guard = 1", 1, 7, "reserved"},
		{"new.target", "function f() { return new.target }", 1, 23, "new.target"},
		{"escaping the wrapper", "});\n(async function () {", 2, 0, ""},
		{"syntax", "const = 1", 1, 7, "syntax error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compose.Validate(c.src)
			var ve *compose.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("accepted %q (err %v)", c.src, err)
			}
			d := ve.Diagnostics[0]
			if c.col != 0 && (d.Line != c.line || d.Column != c.col) {
				t.Errorf("refused at %d:%d (%s), want %d:%d", d.Line, d.Column, d.Message, c.line, c.col)
			}
			if !strings.Contains(d.Message, c.says) {
				t.Errorf("message %q does not say %q", d.Message, c.says)
			}
		})
	}
}

// Every construct of the subset is accepted, and runs.
func TestValidatorAccepts(t *testing.T) {
	cases := map[string]string{
		"const and let":       "const a = 1; let b = 2; b += a; return b",
		"objects and arrays":  "const o = {a: [1, 2], b: {c: 3}, 'd': 4, [\"e\" + 1]: 5}; return o.a[1] + o.b.c + o[\"d\"] + o.e1",
		"shorthand property":  "const a = 1; return {a}",
		"method":              "const o = {f(x) { return x * 2 }}; return o.f(2)",
		"arithmetic":          "return (1 + 2) * 3 / 4 - 5 % 2 + 2 ** 3",
		"comparisons":         "return [1 < 2, 2 <= 2, 3 > 1, 1 === 1, 1 !== 2, 1 == \"1\", null ?? 1, 0 || 2, 1 && 3]",
		"conditions":          "let x = 0; if (x) { x = 1 } else if (!x) { x = 2 } else { x = 3 }; return x > 1 ? x : -x",
		"switch":              "let r; switch (2) { case 1: r = \"a\"; break; case 2: r = \"b\"; break; default: r = \"c\" } return r",
		"for":                 "let s = 0; for (let i = 0; i < 10; i++) { if (i === 5) continue; s += i } return s",
		"for of":              "let s = 0; for (const x of [1, 2, 3]) s += x; return s",
		"for in":              "const ks = []; for (const k in {a: 1, b: 2}) ks.push(k); return ks",
		"while":               "let i = 0; while (i < 3) i++; do { i++ } while (i < 5); return i",
		"functions":           "function f(a, b = 2) { return a + b } return f(1)",
		"arrow callbacks":     "return [1, 2, 3].map(x => x * 2).filter(x => x > 2).reduce((a, b) => a + b, 0)",
		"async arrow":         "const f = async (x) => x + 1; return await f(1)",
		"await and return":    "const r = await tools.tether.echo({text: \"x\"}); return r.output",
		"try catch":           "try { throw new Error(\"x\") } catch (e) { return e.message }",
		"catch without name":  "try { throw new Error(\"x\") } catch { return \"caught\" }",
		"array methods":       "const a = [3, 1, 2]; a.sort(); return [a.slice(1), a.indexOf(2), a.includes(3), a.join(\"-\"), a.find(x => x > 1), a.some(x => x > 2), a.every(x => x > 0), Array.isArray(a), a.concat([4]).length, Array.from(\"ab\")]",
		"string methods":      "const s = \" Hello \"; return [s.trim(), s.toUpperCase(), s.split(\"l\").length, s.replace(\"H\", \"J\"), s.startsWith(\" H\"), s.padStart(8, \"-\"), s.indexOf(\"l\"), \"a,b\".split(\",\")]",
		"regular expressions": "return \"a1b2\".replace(/[0-9]/g, \"\")",
		"JSON":                "return JSON.parse(JSON.stringify({a: [1]})).a[0]",
		"Object":              "return [Object.keys({a: 1}), Object.values({a: 1}), Object.entries({a: 1}), Object.assign({}, {b: 2})]",
		"Math":                "return Math.max(1, Math.min(3, 2)) + Math.floor(1.5) + Math.abs(-1)",
		"console.log":         "console.log(\"x\", 1, {a: 1}); return 1",
		"Promise.all":         "const rs = await Promise.all([tools.tether.echo({text: \"a\"}), tools.tether.echo({text: \"b\"})]); return rs.map(r => r.output)",
		"Promise.allSettled":  "const rs = await Promise.allSettled([tools.tether.failing({why: \"x\"})]); return rs[0].status",
		"new of built-ins":    "const m = new Map(); m.set(\"a\", 1); const s = new Set([1, 1]); return [m.get(\"a\"), s.size, new Error(\"x\").message, typeof new Date().getTime()]",
		"optional chaining":   "const o = {a: null}; return o.a?.b ?? \"none\"",
		"typeof and delete":   "const o = {a: 1}; delete o.a; return typeof o.a",
		"search":              "return search({query: \"echo\"}).tools[0].path",
		"top-level return":    "return",
		"empty":               "",
		"comment at the end":  "return 1 // done",
		"source map comment":  "return 1\n//# sourceMappingURL=/etc/passwd",
	}
	f := newFixture(t)
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := compose.Validate(src); err != nil {
				t.Fatalf("refused %q: %v", src, err)
			}
			if out := f.run(src); out.Err != nil {
				t.Fatalf("%q failed: %v", src, out.Err)
			}
		})
	}
}

// Refusals list several reasons, in order, each with its position.
func TestValidatorListsEveryReason(t *testing.T) {
	_, err := compose.Validate("class A {}\nconst [a] = [1]\nvar x")
	var ve *compose.ValidationError
	if !errors.As(err, &ve) || len(ve.Diagnostics) != 3 {
		t.Fatalf("want 3 reasons, got %v", err)
	}
	got := fmt.Sprint(ve.Diagnostics[0].Line, ve.Diagnostics[1].Line, ve.Diagnostics[2].Line)
	if got != "1 2 3" {
		t.Errorf("reasons on lines %s, want 1 2 3", got)
	}
}

// A refused program has no effect: not one of its calls is made.
func TestRefusedProgramMakesNoCall(t *testing.T) {
	f := newFixture(t)
	out := f.run("await tools.tether.echo({text: \"x\"});\nclass A {}")
	if out.Err == nil || len(out.Children) != 0 || len(f.host.activity) != 0 {
		t.Fatalf("a refused program ran: err %v, %d calls", out.Err, len(out.Children))
	}
}
