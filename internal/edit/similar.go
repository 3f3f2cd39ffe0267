package edit

import "strings"

// place says where a line of old_string sits: its first and last lines may
// be parts of file lines, since old_string can start and end mid-line.
type place int

const (
	middle place = iota
	first        // may be the end of a file line
	last         // may be the start of a file line
	only         // may be anywhere inside a file line
)

func placeOf(i, n int) place {
	switch {
	case n == 1:
		return only
	case i == 0:
		return first
	case i == n-1:
		return last
	}
	return middle
}

// fits reports whether old is the file line, or for an edge line of
// old_string, the part of it that old_string may cover.
func fits(file, old string, p place) bool {
	switch p {
	case first:
		return strings.HasSuffix(file, old)
	case last:
		return strings.HasPrefix(file, old)
	case only:
		return strings.Contains(file, old)
	}
	return file == old
}

// maxCompare caps the bytes of a line compared by edit distance.
const maxCompare = 200

// similarityWork bounds the edit-distance steps spent on one search, so an
// old string of long, all-different lines costs a fixed amount; past it the
// scorer falls back to comparing common prefixes and suffixes. The bound is
// counted in steps, not time, so the same input always gives the same answer.
const similarityWork = 8 << 20

// scorer rates how alike a file line and a line of old_string are, from 0
// to 1, within a fixed budget of work.
type scorer struct{ work int }

func newScorer() *scorer { return &scorer{work: similarityWork} }

func (sc *scorer) similarity(file, old string, p place) float64 {
	if fits(file, old, p) {
		return 1
	}
	ft, ot := strings.TrimSpace(file), strings.TrimSpace(old)
	if ft == ot {
		return 0.95
	}
	if ft == "" || ot == "" {
		return 0
	}
	ft, ot = ft[:min(len(ft), maxCompare)], ot[:min(len(ot), maxCompare)]
	// An edge line shorter than its file line is compared with the best
	// matching part of it, not the whole.
	partial := p != middle && len(ot) < len(ft)
	var s float64
	if cost := len(ft) * len(ot); cost <= sc.work {
		sc.work -= cost
		d := levenshtein(ft, ot, partial)
		if partial {
			s = 1 - float64(d)/float64(len(ot))
		} else {
			s = 1 - float64(d)/float64(max(len(ft), len(ot)))
		}
	} else {
		s = affixRatio(ft, ot)
	}
	// Anything short of equal after trimming scores below a whitespace-only
	// difference, so windows that differ only in spacing always rank first.
	return max(0, min(s, 0.9))
}

// levenshtein is the edit distance between a and b in bytes. With partial
// set, b is matched against the best substring of a (free gaps at both ends
// of a).
func levenshtein(a, b string, partial bool) int {
	prev := make([]int, len(a)+1)
	cur := make([]int, len(a)+1)
	for i := range prev {
		if !partial {
			prev[i] = i
		}
	}
	for j := 1; j <= len(b); j++ {
		cur[0] = j
		for i := 1; i <= len(a); i++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[i] = min(prev[i-1]+cost, prev[i]+1, cur[i-1]+1)
		}
		prev, cur = cur, prev
	}
	if !partial {
		return prev[len(a)]
	}
	best := prev[0]
	for _, v := range prev {
		best = min(best, v)
	}
	return best
}

// affixRatio is the share of the longer string covered by the common
// prefix and suffix: a cheap stand-in for edit distance.
func affixRatio(a, b string) float64 {
	n := min(len(a), len(b))
	pre := 0
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return float64(pre+suf) / float64(max(len(a), len(b)))
}
