// Package linerange keeps a set of 1-based, inclusive line ranges, merged as
// they are added. The read guardrails use it to know whether every line of a
// file has been seen.
package linerange

import (
	"fmt"
	"sort"
	"strings"
)

// Range is the inclusive span of lines [Start, End], 1-based.
type Range struct{ Start, End int }

// Set is a sorted list of disjoint, non-adjacent ranges. The zero value is empty.
type Set struct{ rs []Range }

// Add merges [start, end] into the set. Empty or inverted spans are ignored.
func (s *Set) Add(start, end int) {
	if start < 1 {
		start = 1
	}
	if end < start {
		return
	}
	// First range that could touch [start, end]: its End >= start-1.
	i := sort.Search(len(s.rs), func(i int) bool { return s.rs[i].End >= start-1 })
	j := i
	for j < len(s.rs) && s.rs[j].Start <= end+1 {
		if s.rs[j].Start < start {
			start = s.rs[j].Start
		}
		if s.rs[j].End > end {
			end = s.rs[j].End
		}
		j++
	}
	merged := Range{start, end}
	s.rs = append(s.rs[:i], append([]Range{merged}, s.rs[j:]...)...)
}

// Covers reports whether every line in [start, end] is in the set.
// An empty span (end < start) is always covered.
func (s *Set) Covers(start, end int) bool {
	if end < start {
		return true
	}
	i := sort.Search(len(s.rs), func(i int) bool { return s.rs[i].End >= start })
	return i < len(s.rs) && s.rs[i].Start <= start && s.rs[i].End >= end
}

// Ranges returns a copy of the ranges, sorted.
func (s *Set) Ranges() []Range { return append([]Range(nil), s.rs...) }

// Clip drops every line after last, as when a file has shrunk.
func (s *Set) Clip(last int) {
	out := s.rs[:0]
	for _, r := range s.rs {
		if r.Start > last {
			break
		}
		if r.End > last {
			r.End = last
		}
		out = append(out, r)
	}
	s.rs = out
}

// Missing returns the ranges of [1, total] not in the set, for messages.
func (s *Set) Missing(total int) []Range {
	var out []Range
	next := 1
	for _, r := range s.rs {
		if r.Start > total {
			break
		}
		if r.Start > next {
			out = append(out, Range{next, r.Start - 1})
		}
		next = r.End + 1
	}
	if next <= total {
		out = append(out, Range{next, total})
	}
	return out
}

// String renders ranges as "1-40, 90-120".
func Format(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.Start == r.End {
			parts[i] = fmt.Sprint(r.Start)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.Start, r.End)
		}
	}
	return strings.Join(parts, ", ")
}
