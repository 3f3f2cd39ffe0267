package textfile

import (
	"fmt"
	"sort"
	"strings"
)

// LineRange is the inclusive span of lines [Start, End], 1-based.
type LineRange struct{ Start, End int }

// A LineSet keeps the 1-based, inclusive line ranges of a file that an
// agent has been shown, merged as they are added: the read guardrails use
// it to know whether every line was seen.
//
// LineSet is a sorted list of disjoint, non-adjacent ranges. The zero value is empty.
type LineSet struct{ rs []LineRange }

// Add merges [start, end] into the set. Empty or inverted spans are ignored.
func (s *LineSet) Add(start, end int) {
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
	merged := LineRange{start, end}
	s.rs = append(s.rs[:i], append([]LineRange{merged}, s.rs[j:]...)...)
}

// Covers reports whether every line in [start, end] is in the set.
// An empty span (end < start) is always covered.
func (s *LineSet) Covers(start, end int) bool {
	if end < start {
		return true
	}
	i := sort.Search(len(s.rs), func(i int) bool { return s.rs[i].End >= start })
	return i < len(s.rs) && s.rs[i].Start <= start && s.rs[i].End >= end
}

// Ranges returns a copy of the ranges, sorted.
func (s *LineSet) Ranges() []LineRange { return append([]LineRange(nil), s.rs...) }

// Clip drops every line after last, as when a file has shrunk.
func (s *LineSet) Clip(last int) {
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
func (s *LineSet) Missing(total int) []LineRange {
	var out []LineRange
	next := 1
	for _, r := range s.rs {
		if r.Start > total {
			break
		}
		if r.Start > next {
			out = append(out, LineRange{next, r.Start - 1})
		}
		next = r.End + 1
	}
	if next <= total {
		out = append(out, LineRange{next, total})
	}
	return out
}

// String renders ranges as "1-40, 90-120".
func FormatLineRanges(rs []LineRange) string {
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
