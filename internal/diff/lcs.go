package diff

import (
	"bytes"
	"hash/maphash"
	"slices"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// limits bound the work spent on one diff. They are counted in lines, never
// in time: go-diff's own DiffTimeout is wall-clock, so under load it quietly
// returns a coarser diff, and the user would see a different diff for the
// same edit depending on what else the machine was doing.
type limits struct {
	// small is the gap size (old+new lines) that always goes to Myers:
	// at most small² steps per gap and small·(old+new) in all, too little
	// to be worth rationing.
	small int
	// myers is the largest gap that goes to Myers at all. When the sides
	// share little, go-diff's bisection takes about (old+new)²/4 steps; at
	// 2048 lines that is around 10ms on this project's machines.
	myers int
	// work is the total of (old+new)² over the gaps above small that may go
	// to Myers. Once it is spent such gaps are anchored or replaced, so a
	// file built of many worst-case gaps costs at most about 100ms of Myers.
	work int
	// depth is how many times a gap may be re-anchored on lines that are
	// unique within it. Each level scans its gaps once, so anchoring costs at
	// most depth·(old+new) line visits.
	depth int
}

var defaultLimits = limits{small: 64, myers: 2048, work: 1 << 25, depth: 8}

// lines is a file cut into lines without copying it: line i is
// data[start[i]:start[i+1]], terminator included, so "x\n", "x\r\n" and a
// final unterminated "x" are three different lines. Offsets rather than a
// []string spare the garbage collector a pointer per line of a large file.
type lines struct {
	data  []byte
	start []int // one more than the number of lines
}

func splitLines(p []byte) lines {
	n := bytes.Count(p, []byte{'\n'})
	if len(p) > 0 && p[len(p)-1] != '\n' {
		n++
	}
	start := make([]int, 1, n+1)
	for i := 0; i < len(p); {
		j := bytes.IndexByte(p[i:], '\n')
		if j < 0 {
			i = len(p)
		} else {
			i += j + 1
		}
		start = append(start, i)
	}
	return lines{p, start}
}

func (l lines) len() int        { return len(l.start) - 1 }
func (l lines) at(i int) []byte { return l.data[l.start[i]:l.start[i+1]] }

// script is an edit script: del and ins mark the lines removed from a and
// added in b; the unmarked lines of a and b pair up in order as equal lines.
type script struct {
	a, b     lines
	del, ins []bool
}

// compute diffs a and b line by line.
//
// Identical leading and trailing lines are stripped first, then the rest goes
// to Myers' algorithm (go-diff) if it is small enough to be cheap, since
// Myers gives the smallest diff. A larger region is cut into gaps at the
// longest run of lines that are unique in both sides and in the same order
// (patience diff's anchors), and each gap is diffed the same way, recursively,
// with uniqueness judged within the gap. A gap that is still too large and has
// no such anchor is shown as all its old lines removed and all its new lines
// added: a correct diff, just not the smallest one.
func compute(a, b []byte, lim limits) script {
	s := script{a: splitLines(a), b: splitLines(b)}
	na, nb := s.a.len(), s.b.len()
	s.del = make([]bool, na)
	s.ins = make([]bool, nb)

	pre := 0
	for pre < na && pre < nb && bytes.Equal(s.a.at(pre), s.b.at(pre)) {
		pre++
	}
	suf := 0
	for suf < na-pre && suf < nb-pre && bytes.Equal(s.a.at(na-1-suf), s.b.at(nb-1-suf)) {
		suf++
	}
	if pre+suf == na || pre+suf == nb {
		fill(s.del[pre:na-suf], true)
		fill(s.ins[pre:nb-suf], true)
		return s
	}

	d := newDiffer(s.a, pre, na-suf, s.b, pre, nb-suf, lim)
	d.diff(0, len(d.a), 0, len(d.b), 0)
	copy(s.del[pre:], d.del)
	copy(s.ins[pre:], d.ins)
	return s
}

func fill(b []bool, v bool) {
	for i := range b {
		b[i] = v
	}
}

// differ diffs two line sequences reduced to small integers (one per
// distinct line), so that comparing lines is comparing ints.
type differ struct {
	a, b     []int32
	del, ins []bool
	lim      limits
	work     int

	// Scratch space indexed by line ID, all zero between uses.
	cntA, cntB []int32
	posB       []int32
	local      []rune

	dmp *diffmatchpatch.DiffMatchPatch
}

// newDiffer prepares to diff lines [alo, ahi) of a with [blo, bhi) of b.
func newDiffer(a lines, alo, ahi int, b lines, blo, bhi int, lim limits) *differ {
	ia, ib, n := intern(a, alo, ahi, b, blo, bhi)
	d := &differ{a: ia, b: ib, lim: lim}
	d.del = make([]bool, len(ia))
	d.ins = make([]bool, len(ib))
	d.cntA, d.cntB, d.posB = make([]int32, n), make([]int32, n), make([]int32, n)
	d.local = make([]rune, n)
	d.dmp = diffmatchpatch.New()
	d.dmp.DiffTimeout = 0 // no clock; the work is bounded by limits instead
	return d
}

// diff marks the changes between a[alo:ahi] and b[blo:bhi].
func (d *differ) diff(alo, ahi, blo, bhi, depth int) {
	for alo < ahi && blo < bhi && d.a[alo] == d.b[blo] {
		alo++
		blo++
	}
	for alo < ahi && blo < bhi && d.a[ahi-1] == d.b[bhi-1] {
		ahi--
		bhi--
	}
	if alo == ahi || blo == bhi {
		d.replace(alo, ahi, blo, bhi)
		return
	}
	size := (ahi - alo) + (bhi - blo)
	if size <= d.lim.small {
		d.myers(alo, ahi, blo, bhi)
		return
	}
	if size <= d.lim.myers && d.work+size*size <= d.lim.work {
		d.work += size * size
		d.myers(alo, ahi, blo, bhi)
		return
	}
	if depth < d.lim.depth {
		if anchors := d.anchors(alo, ahi, blo, bhi); len(anchors) > 0 {
			for _, p := range anchors {
				d.diff(alo, p.a, blo, p.b, depth+1)
				alo, blo = p.a+1, p.b+1
			}
			d.diff(alo, ahi, blo, bhi, depth+1)
			return
		}
	}
	d.replace(alo, ahi, blo, bhi)
}

// replace marks every line of both ranges as changed.
func (d *differ) replace(alo, ahi, blo, bhi int) {
	fill(d.del[alo:ahi], true)
	fill(d.ins[blo:bhi], true)
}

// myers runs go-diff's line mode on the two ranges. The lines are renumbered
// from 1 for each call, so the runes stay few and clear of the surrogate
// range (go-diff turns its runes into strings, which would mangle those).
func (d *differ) myers(alo, ahi, blo, bhi int) {
	next := rune(1)
	toRunes := func(ids []int32) []rune {
		r := make([]rune, len(ids))
		for i, id := range ids {
			if d.local[id] == 0 {
				d.local[id] = next
				if next++; next == 0xD800 {
					next = 0xE000
				}
			}
			r[i] = d.local[id]
		}
		return r
	}
	ra, rb := toRunes(d.a[alo:ahi]), toRunes(d.b[blo:bhi])
	for _, id := range d.a[alo:ahi] {
		d.local[id] = 0
	}
	for _, id := range d.b[blo:bhi] {
		d.local[id] = 0
	}

	i, j := alo, blo
	for _, op := range d.dmp.DiffMainRunes(ra, rb, false) {
		n := utf8.RuneCountInString(op.Text)
		switch op.Type {
		case diffmatchpatch.DiffEqual:
			i += n
			j += n
		case diffmatchpatch.DiffDelete:
			fill(d.del[i:i+n], true)
			i += n
		case diffmatchpatch.DiffInsert:
			fill(d.ins[j:j+n], true)
			j += n
		}
	}
	if i != ahi || j != bhi {
		panic("diff: go-diff script does not cover its input")
	}
}

// intern numbers the distinct lines of a[alo:ahi] and b[blo:bhi] in order
// of first appearance. It is the one step that touches every line of a large
// file, and an open-addressing table over precomputed hashes runs it several
// times faster than a map[string]int32. The hash seed is random but only
// decides where lines sit in the table, never their numbers.
func intern(a lines, alo, ahi int, b lines, blo, bhi int) (ia, ib []int32, n int) {
	size := 1
	for size < 2*((ahi-alo)+(bhi-blo)) {
		size *= 2
	}
	mask := uint64(size - 1)
	// A slot holds the top bits of its line's hash beside the line's ID, so
	// a probe usually touches one cache line.
	type slot struct{ hash, id uint32 } // id is the line ID + 1; 0 is empty
	slots := make([]slot, size)
	// first[id] is where the line first occurs: k for a.at(alo+k), or
	// na+k for b.at(blo+k). Ints, not slices, again to spare the collector.
	na := ahi - alo
	first := make([]int32, 0, na+(bhi-blo))
	line := func(ref int32) []byte {
		if int(ref) < na {
			return a.at(alo + int(ref))
		}
		return b.at(blo + int(ref) - na)
	}
	seed := maphash.MakeSeed()
	number := func(l lines, lo, hi, base int) []int32 {
		ids := make([]int32, hi-lo)
		for k := range ids {
			text := l.at(lo + k)
			h := maphash.Bytes(seed, text)
			top := uint32(h >> 32)
			for i := h & mask; ; i = (i + 1) & mask {
				s := slots[i]
				if s.id == 0 {
					first = append(first, int32(base+k))
					slots[i] = slot{top, uint32(len(first))}
					ids[k] = int32(len(first) - 1)
					break
				}
				if s.hash == top && bytes.Equal(line(first[s.id-1]), text) {
					ids[k] = int32(s.id - 1)
					break
				}
			}
		}
		return ids
	}
	ia, ib = number(a, alo, ahi, 0), number(b, blo, bhi, na)
	return ia, ib, len(first)
}

type pair struct{ a, b int }

// anchors returns the longest sequence of lines that occur exactly once in
// a[alo:ahi] and once in b[blo:bhi], in the same order on both sides. Such
// lines can only match each other, so they cut the problem into independent
// gaps without a search.
func (d *differ) anchors(alo, ahi, blo, bhi int) []pair {
	for _, id := range d.a[alo:ahi] {
		d.cntA[id]++
	}
	for j := blo; j < bhi; j++ {
		id := d.b[j]
		d.cntB[id]++
		d.posB[id] = int32(j)
	}
	cand := make([]pair, 0, min(ahi-alo, bhi-blo))
	for i := alo; i < ahi; i++ {
		if id := d.a[i]; d.cntA[id] == 1 && d.cntB[id] == 1 {
			cand = append(cand, pair{i, int(d.posB[id])})
		}
	}
	for _, id := range d.a[alo:ahi] {
		d.cntA[id] = 0
	}
	for _, id := range d.b[blo:bhi] {
		d.cntB[id] = 0
	}
	return longestIncreasing(cand)
}

// longestIncreasing returns the longest subsequence of c (sorted by a) whose
// b are increasing, by patience sorting in O(n log n).
func longestIncreasing(c []pair) []pair {
	if len(c) == 0 {
		return nil
	}
	var tails []int // tails[k]: index in c of the smallest last b of a run of length k+1
	prev := make([]int, len(c))
	for k, p := range c {
		n := len(tails) // most anchors extend the longest run: skip the search
		if n > 0 && c[tails[n-1]].b > p.b {
			n, _ = slices.BinarySearchFunc(tails, p.b, func(t, b int) int { return c[t].b - b })
		}
		prev[k] = -1
		if n > 0 {
			prev[k] = tails[n-1]
		}
		if n == len(tails) {
			tails = append(tails, k)
		} else {
			tails[n] = k
		}
	}
	out := make([]pair, len(tails))
	for k, x := len(out)-1, tails[len(tails)-1]; k >= 0; k-- {
		out[k] = c[x]
		x = prev[x]
	}
	return out
}
