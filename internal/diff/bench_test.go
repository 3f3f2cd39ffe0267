package diff

import (
	"fmt"
	"testing"

	"github.com/tether-dev/tether/internal/diff/difftest"
)

// BenchmarkUnified diffs a 100,000-line file against copies with 1%, 10% and
// 30% of its lines edited (the same inputs bench/diff compares with diff -u).
func BenchmarkUnified(b *testing.B) {
	for _, pct := range []float64{1, 10, 30} {
		old, edited := difftest.Pair(100_000, pct, 1)
		b.Run(fmt.Sprintf("%g%%", pct), func(b *testing.B) {
			b.SetBytes(int64(len(old) + len(edited)))
			for b.Loop() {
				Unified("a/f", "b/f", old, edited)
			}
		})
	}
}
