package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// firstN keeps exactly the first n of a shuffled stream, whatever its
// order, and never holds much more than twice n.
func TestFirstNKeepsTheSmallest(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100} {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 1))
			items := r.Perm(1000)
			f := newFirstN(n, cmp.Compare[int], func(int) int { return 1 })
			most := 0
			for _, x := range items {
				f.add(x)
				most = max(most, len(f.items))
			}
			got := f.sorted()
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d seed=%d: got %v", n, seed, got)
			}
			if most > 2*n {
				t.Fatalf("n=%d: held %d items at once", n, most)
			}
		}
	}
}

// With weights (a file's lines), the kept items are the first ones whose
// weights reach n, whole.
func TestFirstNWeighted(t *testing.T) {
	type blk struct{ key, lines int }
	f := newFirstN(5, func(a, b blk) int { return cmp.Compare(a.key, b.key) }, func(b blk) int { return b.lines })
	for _, b := range []blk{{9, 1}, {3, 2}, {7, 4}, {1, 1}, {5, 1}, {8, 3}, {2, 1}} {
		f.add(b)
	}
	got := f.sorted()
	want := []blk{{1, 1}, {2, 1}, {3, 2}, {5, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
