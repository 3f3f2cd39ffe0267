package search

import "slices"

// firstN keeps the n smallest of a stream of items, in the order cmp
// gives, without holding the whole stream: ripgrep walks in parallel and
// reports files in whatever order its threads finish them, yet a search
// cut at a limit must keep the first paths of the sorted list, not the
// first ones found. Items are gathered until there are twice as many as
// needed, then sorted and cut back to n; an item that sorts after the
// last kept one is dropped on arrival. The cost is O(total · log n) time
// and O(n) memory.
//
// weight counts what an item holds towards n (a file's lines); an item
// counts whole, so the kept items may together hold more than n.
type firstN[T any] struct {
	n      int
	cmp    func(a, b T) int
	weight func(T) int

	items []T
	held  int // the weight of items
	// last is the greatest kept item once a compaction has filled n:
	// nothing after it can be among the first n.
	last    T
	hasLast bool
}

func newFirstN[T any](n int, cmp func(a, b T) int, weight func(T) int) *firstN[T] {
	return &firstN[T]{n: max(n, 1), cmp: cmp, weight: weight}
}

// add offers one item.
func (f *firstN[T]) add(x T) {
	if f.hasLast && f.cmp(x, f.last) > 0 {
		return
	}
	f.items = append(f.items, x)
	f.held += f.weight(x)
	if f.held >= 2*f.n && len(f.items) > 1 {
		f.compact()
	}
}

// compact sorts the items and drops those past the first n.
func (f *firstN[T]) compact() {
	slices.SortStableFunc(f.items, f.cmp)
	held := 0
	for i, x := range f.items {
		held += f.weight(x)
		if held >= f.n {
			clear(f.items[i+1:])
			f.items = f.items[:i+1]
			f.last, f.hasLast = x, true
			break
		}
	}
	f.held = held
}

// sorted returns the kept items in order: the first of the stream, until
// their weight reaches n.
func (f *firstN[T]) sorted() []T {
	f.compact()
	return f.items
}
