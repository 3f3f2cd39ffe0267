// Package difftest generates reproducible file pairs for measuring diffs.
// It is shared by the package's benchmarks and by bench/diff, so the two
// measure the same inputs.
package difftest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Pair returns a source-like file of n lines and an edited copy in which
// about percent% of the lines were changed: 60% of the edits rewrite a line,
// 20% delete it and 20% insert a new line after it. About a quarter of the
// lines are ones that repeat throughout real code ("}", blank lines, "return
// err"), so the inputs are not all unique lines, which would flatter an
// algorithm that anchors on unique lines. The same arguments always give the
// same files.
func Pair(n int, percent float64, seed uint64) (a, b []byte) {
	r := rand.New(rand.NewPCG(seed, 0x7e7e))
	serial := 0
	line := func() string {
		serial++
		switch r.IntN(12) {
		case 0:
			return "\n"
		case 1:
			return "\t}\n"
		case 2:
			return "\t\treturn err\n"
		default:
			return fmt.Sprintf("\tv%d := compute(v%d, %d, %q)\n", serial, r.IntN(serial), r.IntN(1000), words[r.IntN(len(words))])
		}
	}
	var old, edited strings.Builder
	for range n {
		l := line()
		old.WriteString(l)
		if r.Float64()*100 >= percent {
			edited.WriteString(l)
			continue
		}
		switch x := r.IntN(10); {
		case x < 6:
			edited.WriteString(line())
		case x < 8:
			// deleted
		default:
			edited.WriteString(l)
			edited.WriteString(line())
		}
	}
	return []byte(old.String()), []byte(edited.String())
}

var words = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
