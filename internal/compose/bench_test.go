package compose_test

import (
	"context"
	"testing"

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
