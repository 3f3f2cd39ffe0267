package compose_test

import (
	"context"
	"testing"
	"time"

	"modernc.org/quickjs"

	"github.com/tether-dev/tether/internal/compose"
)

// BenchmarkStartEmpty is what every program pays before its first
// statement: validation, a fresh engine with its limits, the prelude, and
// an empty program run to its end. Target: under 2 ms.
func BenchmarkStartEmpty(b *testing.B) {
	f := newFixture(&testing.T{})
	r := f.runner()
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if out := r.Run(ctx, ""); out.Err != nil {
			b.Fatal(out.Err)
		}
	}
	// CPU time says more than wall time on a machine shared with others.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkEngineOnly is the bare engine: a new VM and an empty async
// function, without the prelude or validation, for comparison.
func BenchmarkEngineOnly(b *testing.B) {
	cpu := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		vm, err := quickjs.NewVM()
		if err != nil {
			b.Fatal(err)
		}
		v, err := vm.EvalValue("(async function(){})()", quickjs.EvalGlobal)
		if err != nil {
			b.Fatal(err)
		}
		v.Free()
		if _, err := vm.ExecutePendingJobs(); err != nil {
			b.Fatal(err)
		}
		vm.Close()
	}
}

// BenchmarkValidate is the validator alone on a typical program.
func BenchmarkValidate(b *testing.B) {
	src := `const files = ["a.go", "b.go", "c.go"];
const rs = await Promise.all(files.map(p => tools.tether.read_file({path: p})));
const hits = [];
for (const r of rs) {
  for (const line of r.output.split("\n")) {
    if (line.indexOf("TODO") >= 0) hits.push(line);
  }
}
return hits.slice(0, 20);`
	for b.Loop() {
		if _, err := compose.Validate(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStepCount is what counting steps costs a loop-heavy program: a
// program of 200,000 loop iterations with a callback each, run by the
// runner (every iteration and call counted), side by side with the same
// loop on the bare engine (nothing counted), alternating in each round so
// that machine noise falls on both. Reported: each side's time per round
// and their ratio.
func BenchmarkStepCount(b *testing.B) {
	const loop = `let s = 0; const add = x => x + 1; for (let i = 0; i < 200000; i++) { s = add(s) } return s`
	f := newFixture(&testing.T{})
	f.lim.Timeout = 0
	r := f.runner()
	ctx := context.Background()
	var counted, bare time.Duration
	for b.Loop() {
		start := time.Now()
		if out := r.Run(ctx, loop); out.Err != nil || out.Value.Text != "200000" {
			b.Fatal(out.Err, out.Value.Text)
		}
		counted += time.Since(start)

		start = time.Now()
		vm, err := quickjs.NewVM()
		if err != nil {
			b.Fatal(err)
		}
		v, err := vm.Eval("(function(){"+loop+"})()", quickjs.EvalGlobal)
		if err != nil || v != 200000 {
			b.Fatal(err, v)
		}
		vm.Close()
		bare += time.Since(start)
	}
	b.ReportMetric(float64(counted.Nanoseconds())/float64(b.N), "counted-ns/op")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-ns/op")
	b.ReportMetric(float64(counted)/float64(bare), "counted/bare")
}
