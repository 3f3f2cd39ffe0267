package compose_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/compose"
	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// limitOf is the name of the limit a run hit, or "".
func limitOf(out *compose.Outcome) string {
	var le *compose.LimitError
	if errors.As(out.Err, &le) {
		return le.Limit
	}
	return ""
}

// smallMemory makes a memory limit quick to reach (slow builds, such as
// -race, take minutes to fill the default), with time to spare.
func smallMemory(f *fixture) {
	f.lim.MemoryBytes = 16 << 20
	f.lim.Timeout = 10 * time.Minute
}

// Each limit is hit on its own, reported by name, and catching the error
// in the program does not get past it.
func TestLimitsOneByOne(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		limit string
		setup func(*fixture)
	}{
		{"source", "return 1 //" + strings.Repeat("x", compose.DefaultSourceBytes), compose.LimitSource, nil},
		{"memory: a string doubled", `let s = "x";
			try { for (;;) { s = s + s; s = s.slice(1) + "y" } } catch (e) { return "escaped: " + e }`, compose.LimitMemory, smallMemory},
		{"memory: caught by .catch", `const p = (async () => { let a = []; for (;;) a.push({n: a.length}) })();
			return await p.catch(e => "escaped: " + e)`, compose.LimitMemory, smallMemory},
		{"time: an endless loop", `try { for (;;) {} } catch (e) { return "escaped" }`, compose.LimitTime,
			func(f *fixture) { f.lim.Timeout = 200 * time.Millisecond }},
		{"time: an endless loop between calls", `for (let i = 0; ; i++) { await tools.tether.echo({text: "" + i % 50}) }`, compose.LimitTime,
			func(f *fixture) { f.lim.Timeout = 300 * time.Millisecond; f.lim.MaxCalls = 1 << 20 }},
		{"tool calls", `for (let i = 0; i < 201; i++) { try { await tools.tether.echo({text: "" + i}) } catch (e) {} }
			return "escaped"`, compose.LimitCalls, nil},
		{"tool calls: swallowed by allSettled", `const ps = [];
			for (let i = 0; i < 201; i++) ps.push(tools.tether.echo({text: "" + i}).catch(e => 0));
			return await Promise.allSettled(ps)`, compose.LimitCalls, nil},
		{"stack depth", `function f(n) { return f(n + 1) + 1 }
			try { f(0) } catch (e) { return "escaped: " + e }`, compose.LimitStack, nil},
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
			if !strings.Contains(out.Err.Error(), c.limit) {
				t.Errorf("the error does not name the limit: %v", out.Err)
			}
		})
	}
}

// The 201st call is not made: exactly the limit's number of calls ran.
func TestCallLimitStopsAtTheLimit(t *testing.T) {
	f := newFixture(t)
	out := f.run(`for (let i = 0; i < 250; i++) await tools.tether.echo({text: "" + i})`)
	if limitOf(out) != compose.LimitCalls || len(out.Children) != compose.DefaultMaxCalls {
		t.Fatalf("%d calls made, limit %q; want %d and %q", len(out.Children), limitOf(out), compose.DefaultMaxCalls, compose.LimitCalls)
	}
}

// Log lines past the limit are dropped and counted; the program goes on.
func TestLogLimit(t *testing.T) {
	f := newFixture(t)
	out := f.run(`for (let i = 0; i < 250; i++) console.log("line " + i); return "done"`)
	if out.Err != nil || out.Value.Text != "done" {
		t.Fatalf("err %v, value %q", out.Err, out.Value.Text)
	}
	if len(out.Logs) != compose.MaxLogLines || out.LogsDropped != 250-compose.MaxLogLines {
		t.Fatalf("%d lines kept, %d dropped", len(out.Logs), out.LogsDropped)
	}
	if out.Logs[0] != "line 0" {
		t.Errorf("first line %q", out.Logs[0])
	}
}

// rss is the process's resident set, in bytes, from /proc.
func rss(t *testing.T) int64 {
	kib, err := rpctest.ProcKiB(os.Getpid(), "VmRSS")
	if err != nil {
		t.Skipf("no resident set to read here: %v", err)
	}
	return int64(kib) << 10
}

// The process's memory stays bounded while a program runs into the memory
// limit: sampled from /proc during the run, the growth stays within a
// generous multiple of the limit.
func TestMemoryLimitBoundsTheProcess(t *testing.T) {
	f := newFixture(t)
	base := rss(t)
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		most := base
		for {
			select {
			case <-stop:
				peak <- most
				return
			default:
			}
			most = max(most, rss(t))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	out := f.run(`let s = "x"; let keep = [];
		for (;;) { s = s + s; s = s.slice(1) + "y"; keep.push(s.slice(0, 1000)) }`)
	close(stop)
	grew := <-peak - base
	if limitOf(out) != compose.LimitMemory {
		t.Fatalf("limit %q, err %v", limitOf(out), out.Err)
	}
	ceiling := int64(4 * compose.DefaultMemoryBytes)
	t.Logf("resident set grew by %d MB during the run (limit %d MB, ceiling %d MB)", grew>>20, compose.DefaultMemoryBytes>>20, ceiling>>20)
	if grew > ceiling {
		t.Fatalf("resident set grew by %d MB, over %d MB", grew>>20, ceiling>>20)
	}
}

// Promise.all runs its calls at once: each gate call waits until all of
// them are inside, which only concurrent calls can reach.
func TestPromiseAllRunsCallsConcurrently(t *testing.T) {
	g := newGate(5)
	f := newFixture(t, g.tool())
	f.lim.Timeout = 20 * time.Second // only reached if the calls were serial
	got := f.ok(`const rs = await Promise.all([0, 1, 2, 3, 4].map(i => tools.tether.gate({i: i})));
		return rs.map(r => r.output).join(",")`)
	if got != "passed 0,passed 1,passed 2,passed 3,passed 4" {
		t.Fatalf("got %q", got)
	}
	if g.most != 5 {
		t.Fatalf("at most %d calls were inside at once, want 5", g.most)
	}
}

// No more than the concurrency limit run at once; the rest wait, and the
// wait is reported.
func TestConcurrencyLimit(t *testing.T) {
	g := newGate(compose.MaxConcurrentCalls)
	f := newFixture(t, g.tool())
	f.lim.Timeout = 20 * time.Second // only reached if fewer calls than the limit ran at once
	out := f.run(`const ps = []; for (let i = 0; i < 20; i++) ps.push(tools.tether.gate({i: i}));
		return (await Promise.all(ps)).length`)
	if out.Err != nil || out.Value.Text != "20" {
		t.Fatalf("err %v, value %q", out.Err, out.Value.Text)
	}
	if g.most != compose.MaxConcurrentCalls {
		t.Fatalf("%d calls were inside at once, want %d", g.most, compose.MaxConcurrentCalls)
	}
	if out.Waited > 20-compose.MaxConcurrentCalls {
		t.Errorf("%d calls waited, more than the %d beyond the limit", out.Waited, 20-compose.MaxConcurrentCalls)
	}
}

// Cancelling the run's context stops the program and its calls, whatever
// it catches; nothing is left running.
func TestCancellationInTheMiddle(t *testing.T) {
	g := newGate(100) // never opens
	f := newFixture(t, g.tool())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for i := 0; i < 3; i++ {
			<-g.entered
		}
		cancel()
	}()
	out := f.runner().Run(ctx, `await tools.tether.echo({text: "before"});
		try { await Promise.all([tools.tether.gate({i: 1}), tools.tether.gate({i: 2}), tools.tether.gate({i: 3})]) } catch (e) {}
		await tools.tether.echo({text: "after"});
		return "escaped"`)
	if !errors.Is(out.Err, compose.ErrCancelled) {
		t.Fatalf("err %v, value %q; want cancelled", out.Err, out.Value.Text)
	}
	if len(out.Children) != 4 {
		t.Fatalf("%d calls, want 4 (the one after the cancel is never made)", len(out.Children))
	}
	for _, ch := range out.Children[1:] {
		if ch.Status != protocol.ActivityError || !strings.Contains(ch.Result.Content, "cancelled") {
			t.Errorf("call %d: %s %q", ch.N, ch.Status, ch.Result.Content)
		}
	}
}

// A tool's failure is a ToolError the program can catch, carrying the
// result envelope.
func TestToolErrorCaught(t *testing.T) {
	f := newFixture(t)
	got := f.ok(`try { await tools.tether.failing({why: "disk full"}); return "no error" }
		catch (e) { return [e.name, e.message, e.result.isError, e.result.metadata.tool, e.tool].join("|") }`)
	if got != "ToolError|failed: disk full|true|failing|failing" {
		t.Fatalf("got %q", got)
	}
}

// Arguments: integral numbers go out as integers, undefined is left out
// of objects and refused in arrays (never made null), large identifiers
// stay strings.
func TestArgumentEncoding(t *testing.T) {
	f := newFixture(t)
	for src, want := range map[string]string{
		`{n: 3.0}`:                          `{"n":3}`,
		`{n: -0}`:                           `{"n":0}`,
		`{n: 1.5}`:                          `{"n":1.5}`,
		`{n: 1e3}`:                          `{"n":1000}`,
		`{text: undefined, n: 1}`:           `{"n":1}`,
		`{text: "12345678901234567890123"}`: `{"text":"12345678901234567890123"}`,
		`{obj: {a: undefined, b: null}}`:    `{"obj":{"b":null}}`,
		`{list: [1, "a", null, {x: 2}]}`:    `{"list":[1,"a",null,{"x":2}]}`,
	} {
		got := f.ok(`return (await tools.tether.echo(` + src + `)).output`)
		if got != want {
			t.Errorf("%s went out as %s, want %s", src, got, want)
		}
	}
	for src, says := range map[string]string{
		`{list: [1, undefined]}`: "args.list[1] is undefined",
		`{n: 2 ** 60}`:           "outside the safe range",
		`{n: NaN}`:               "finite",
		`{n: 1 / 0}`:             "finite",
		`{obj: {f: () => 1}}`:    "args.obj.f is a function",
		`[1]`:                    "takes one object",
		`"x"`:                    "takes one object",
	} {
		out := f.run(`return await tools.tether.echo(` + src + `)`)
		if out.Err == nil || !strings.Contains(out.Err.Error(), says) {
			t.Errorf("%s: err %v, want it to say %q", src, out.Err, says)
		}
	}
	// A large number in a result stays exactly as the tool wrote it.
	got := f.ok(`const r = await tools.tether.echo({text: "id 9007199254740993"}); return JSON.parse(r.output).text`)
	if got != "id 9007199254740993" {
		t.Errorf("got %q", got)
	}
}

// String positions count Unicode characters, so an emoji is one.
func TestStringIndexingCountsCharacters(t *testing.T) {
	f := newFixture(t)
	got := f.ok(`const s = "a😀b😀c";
		return [s.indexOf("b"), s.indexOf("😀", 2), s.lastIndexOf("😀"), s.slice(1, 3), s.slice(-2), s.substring(3, 1),
			s.charAt(1), s.at(-1), "plain".indexOf("a"), "plain".slice(1, -1)].join("|")`)
	if want := "2|3|3|😀b|😀c|😀b|😀|c|2|lai"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The catalog leaves out interactive, recursive and orchestration tools;
// search pages through the rest with exact paths and signatures.
func TestCatalogAndSearch(t *testing.T) {
	mk := func(name string) tool.Tool {
		return tool.New(tool.Def[struct{}]{Name: name, Doc: name + " tool.", Run: func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
			return tool.Text(name), nil
		}})
	}
	f := newFixture(t, mk("compose"), mk("ask_user"), mk("agent"), mk("todo"), mk("read_thing"), mk("read_other"))
	c := compose.NewCatalog(f.reg, f.env)
	for _, n := range []string{"compose", "ask_user", "agent", "todo"} {
		if c.Has(n) {
			t.Errorf("%s is in the catalog", n)
		}
	}
	res, err := c.Search(compose.SearchArgs{Query: "read", Limit: 1})
	if err != nil || res.Total != 2 || len(res.Tools) != 1 || res.NextOffset == nil || *res.NextOffset != 1 {
		t.Fatalf("page 1: %+v %v", res, err)
	}
	res2, _ := c.Search(compose.SearchArgs{Query: "read", Limit: 1, Offset: 1})
	if len(res2.Tools) != 1 || res2.NextOffset != nil || res2.Tools[0].Name == res.Tools[0].Name {
		t.Fatalf("page 2: %+v", res2)
	}
	if _, err := c.Search(compose.SearchArgs{Namespace: "github"}); err == nil {
		t.Error("an unknown namespace was searched")
	}
	out := f.run(`return await tools.tether.todo({})`)
	if out.Err == nil || !strings.Contains(out.Err.Error(), "not in the catalog") {
		t.Errorf("todo was callable: %v", out.Err)
	}
}

// Every call is reported as it starts and ends, under the compose call.
func TestActivityReported(t *testing.T) {
	f := newFixture(t)
	f.ok(`await tools.tether.echo({text: "a"}); try { await tools.tether.failing({why: "b"}) } catch (e) {}`)
	var got []string
	for _, a := range f.host.activity {
		if a.ParentCallID != "7" || a.RequestID != "r1" {
			t.Errorf("activity %+v not under the compose call", a)
		}
		got = append(got, a.CallID+" "+a.Tool+" "+string(a.Status))
	}
	want := "7.1 echo running,7.1 echo ok,7.2 failing running,7.2 failing error"
	if strings.Join(got, ",") != want {
		t.Fatalf("activity %q, want %q", strings.Join(got, ","), want)
	}
}

// A program that awaits what never finishes is told so at once.
func TestStuckProgram(t *testing.T) {
	f := newFixture(t)
	out := f.run(`const p = Promise.race([]); await p; return 1`)
	if out.Err == nil || !strings.Contains(out.Err.Error(), "never finish") {
		t.Fatalf("err %v", out.Err)
	}
}

// Runtime errors name their line and column in the program as written.
func TestRuntimeErrorPosition(t *testing.T) {
	f := newFixture(t)
	out := f.run("const a = 1;\nconst b = null;\nreturn b.c")
	var pe *compose.ProgramError
	if !errors.As(out.Err, &pe) || pe.Line != 3 || pe.Name != "TypeError" {
		t.Fatalf("err %#v", out.Err)
	}
}

// The ways from a value to code generation are closed at run time too.
func TestNoCodeGeneration(t *testing.T) {
	f := newFixture(t)
	for _, src := range []string{
		`const k = "constr" + "uctor"; return (() => 1)[k]("return 1")()`,
		`const k = "constr" + "uctor"; return (async () => 1)[k]("return 1")`,
		`const k = "constr" + "uctor"; const F = [][k][k]; return F("return 1")()`,
	} {
		if out := f.run(src); out.Err == nil {
			t.Errorf("%s ran: %q", src, out.Value.Text)
		}
	}
}

// A program's own throw null is caught like any value; only the engine's
// null (memory gone) is the memory limit.
func TestOwnNullThrowIsNotALimit(t *testing.T) {
	f := newFixture(t)
	got := f.ok(`let n = 0;
		try { throw null } catch (e) { n++ }
		try { await Promise.reject(undefined) } catch (e) { n++ }
		await Promise.reject(null).catch(e => n++);
		return n`)
	if got != "3" {
		t.Fatalf("got %q", got)
	}
}

// The ending report carries the call's input, output and diff for the
// editor's history, cut to a bound.
func TestActivityCarriesHistory(t *testing.T) {
	f := newFixture(t)
	f.ok(`await tools.tether.echo({text: "x".repeat(40000)})`)
	end := f.host.activity[1]
	if end.Status != protocol.ActivityOK || !strings.HasPrefix(end.Input, `{"text":"xxx`) || !strings.Contains(end.Output, "kept in the history") || len(end.Output) > tool.MaxHistoryBytes+100 {
		t.Fatalf("history: status %s, input %d bytes, output %d bytes", end.Status, len(end.Input), len(end.Output))
	}
	if f.host.activity[0].Output != "" {
		t.Error("the starting report carries an output")
	}
}

// invokingHost is an editor that runs a program's calls itself (as VS Code
// does through lm.invokeTool), by calling the registry back.
type invokingHost struct {
	recHost
	reg    *tool.Registry
	parent func() *tool.Call
	got    []protocol.ToolInvokeParams
}

func (h *invokingHost) InvokeTool(ctx context.Context, p protocol.ToolInvokeParams) (protocol.ToolCallResult, error) {
	h.mu.Lock()
	h.got = append(h.got, p)
	h.mu.Unlock()
	parent := h.parent()
	res := h.reg.Invoke(ctx, &tool.Call{Name: p.Name, Args: p.Arguments, RequestID: p.RequestID, Budget: parent.Budget, Session: parent.Session, Env: parent.Env})
	return protocol.ToolCallResult{Content: res.Content, IsError: res.IsError, Diff: res.Diff}, nil
}

// With a client that can run tool calls, a program's calls go through it,
// named by request, parent and call id; errors still throw ToolErrors.
func TestCallsThroughTheClient(t *testing.T) {
	f := newFixture(t)
	r := f.runner()
	h := &invokingHost{reg: f.reg, parent: func() *tool.Call { return r.Parent }}
	f.env.Host = h
	f.env.Capabilities.InvokeTools = true
	out := r.Run(context.Background(), `const a = await tools.tether.echo({text: "a"});
		try { await tools.tether.failing({why: "x"}) } catch (e) { return a.output + " " + e.name }`)
	if out.Err != nil || out.Value.Text != `{"text":"a"} ToolError` {
		t.Fatalf("err %v, value %q", out.Err, out.Value.Text)
	}
	if len(h.got) != 2 || h.got[0].ParentCallID != "7" || h.got[0].CallID != "7.1" || h.got[1].Name != "failing" || h.got[0].RequestID != "r1" {
		t.Fatalf("calls through the client: %+v", h.got)
	}
}
