package compose_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/compose"
)

// Every limit ends a program with a message that names it, however the
// program hit it: an array grown until memory runs out, with nothing
// caught, used to end "The program stopped: null".
func TestEveryLimitIsNamed(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		limit string
		setup func(*fixture)
	}{
		{"memory: an array grown, nothing caught", `let a = []; for (;;) a.push({n: a.length})`, compose.LimitMemory, smallMemory},
		{"memory: in an async function", `async function grow() { let a = []; for (;;) a.push([a.length]) }
			await grow()`, compose.LimitMemory, smallMemory},
		{"memory: in a callback", `let a = []; [1].forEach(function () { for (;;) a.push("" + a.length) })`, compose.LimitMemory, smallMemory},
		{"steps: a busy loop", `while (true) {}`, compose.LimitSteps, longTime},
		{"steps: caught and looped again", `for (;;) { try { while (true) {} } catch (e) {} }`, compose.LimitSteps, longTime},
		{"steps: in a callback", `[1, 2, 3].map(x => { for (;;) {} })`, compose.LimitSteps, longTime},
		{"steps: endless calls", `function f(n) { return n } for (let i = 0; ; i++) f(i)`, compose.LimitSteps, longTime},
		{"steps: caught by .catch", `const p = (async () => { for (;;) {} })(); return await p.catch(e => "escaped")`, compose.LimitSteps, longTime},
		{"stack depth: arrow recursion", `const f = n => f(n + 1); try { f(0) } catch (e) { return "escaped" }`, compose.LimitStack, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			if c.setup != nil {
				c.setup(f)
			}
			out := f.run(c.src)
			if got := limitOf(out); got != c.limit {
				t.Fatalf("limit %q hit, want %q; err %v, value %q", got, c.limit, out.Err, out.Value.Text)
			}
			if msg := out.Err.Error(); !strings.Contains(msg, c.limit) || strings.Contains(msg, "null") {
				t.Errorf("the error does not name the limit: %v", msg)
			}
		})
	}
}

// longTime leaves the step limit, not the time limit, to stop a busy loop;
// a lower one than the default, so slow builds (-race) are quick about it.
func longTime(f *fixture) {
	f.lim.Timeout = 10 * time.Minute
	f.lim.MaxSteps = 300_000
}

// A busy loop stops after a bounded number of steps, well before the time
// limit, and ordinary loops of a sensible size run to the end.
func TestStepLimit(t *testing.T) {
	f := newFixture(t)
	f.lim.Timeout = 10 * time.Minute // the default step limit stops it
	out := f.run(`let n = 0; while (true) { n++ }`)
	if limitOf(out) != compose.LimitSteps || !strings.Contains(out.Err.Error(), "steps") {
		t.Fatalf("err %v", out.Err)
	}
	if got := f.ok(`let s = 0; for (let i = 0; i < 100000; i++) { s += i } return s`); got != "4999950000" {
		t.Fatalf("a loop of 100000 steps: %q", got)
	}
	f.lim.MaxSteps = 1000
	if out := f.run(`let s = 0; for (let i = 0; i < 2000; i++) { s += i } return s`); limitOf(out) != compose.LimitSteps {
		t.Fatalf("a loop of 2000 steps under a limit of 1000: err %v, value %q", out.Err, out.Value.Text)
	}
	if got := f.ok(`let s = 0; for (let i = 0; i < 500; i++) { s += i } return s`); got != "124750" {
		t.Fatalf("a loop of 500 steps under a limit of 1000: %q", got)
	}
}

// A caught error carries its kind, message, line and column in the
// program's own coordinates, and String(e) reads them; its stack points
// into the program, never into the wrapper around it.
func TestCaughtErrorCarriesItsPlace(t *testing.T) {
	f := newFixture(t)
	var got struct {
		Kind, Message, Text, Stack string
		Line, Column               int
	}
	decode := func(s string) {
		t.Helper()
		got.Kind, got.Message, got.Text, got.Stack, got.Line, got.Column = "", "", "", "", 0, 0
		if err := json.Unmarshal([]byte(s), &got); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
	}
	const report = `return {kind: e.kind, message: e.message, line: e.line, column: e.column, text: String(e), stack: e.stack}`

	decode(f.ok("const a = null;\ntry {\n  const b = 1; a.x\n} catch (e) { " + report + " }"))
	if got.Kind != "TypeError" || got.Line != 3 || got.Column != 17 || !strings.Contains(got.Message, "null") ||
		!strings.Contains(got.Text, "TypeError") || !strings.Contains(got.Text, "line 3") {
		t.Errorf("TypeError: %+v", got)
	}
	if strings.Contains(got.Stack, "131") || strings.Contains(got.Stack, "eval") || !strings.Contains(got.Stack, "line 3:17") {
		t.Errorf("the stack points outside the program: %q", got.Stack)
	}

	// A guard spliced into an earlier catch on the same line does not move
	// the column (35: the dot of null.y).
	decode(f.ok("try { 1 } catch (x) { } try { null.y } catch (e) { " + report + " }"))
	if got.Line != 1 || got.Column != 35 {
		t.Errorf("after a catch on the same line: %+v", got)
	}

	// Columns count characters, as the program is written: é and 😀 are
	// one each, wherever guards were spliced in before them.
	decode(f.ok("const s = \"é😀\"; try { } catch (x) { } try { null.x } catch (e) { " + report + " }"))
	if got.Line != 1 || got.Column != 49 {
		t.Errorf("after wide characters: %+v", got)
	}

	decode(f.ok("const s = \"😀😀😀😀😀😀\"; try { try { null.y } catch (x) { null.x } } catch (e) { " + report + " }"))
	if got.Line != 1 || got.Column != 58 {
		t.Errorf("right after a guard, after wide characters: %+v", got)
	}

	decode(f.ok("try {\n  await tools.tether.failing({why: \"no\"})\n} catch (e) { " + report + " }"))
	if got.Kind != "ToolError" || got.Line != 2 || !strings.Contains(got.Message, "failed: no") || !strings.Contains(got.Text, "ToolError") {
		t.Errorf("ToolError: %+v", got)
	}

	// Made where it is thrown: the engine places it at the constructor's
	// call (column 34), past the marker spliced around what is thrown; the
	// stack names the function and the call that led there.
	decode(f.ok("function check(n) {\n  if (n > 1) throw new RangeError(\"too big\")\n}\ntry { check(5) } catch (e) { " + report + " }"))
	if got.Kind != "RangeError" || got.Line != 2 || got.Column != 34 || got.Message != "too big" ||
		got.Stack != "    at check (line 2:34)\n    at <program> (line 4:12)\n" {
		t.Errorf("a thrown RangeError: %+v", got)
	}
}
