package edit

import (
	"bytes"
	"sort"
)

// A finder yields the occurrences of a pattern in a file, in order, as
// offsets into the file's own bytes. A line break in the pattern matches
// LF or CRLF, and no occurrence begins or ends between the CR and the LF
// of a pair: exactly the occurrences of the pattern in the file with every
// CRLF folded to LF.
//
// next continues after the previous occurrence: with overlap set, from the
// byte after its start, so overlapping occurrences are seen too; otherwise
// from its end. ok is false when there are no more.
type finder interface {
	next(overlap bool) (s, e int, ok bool)
}

// find returns a finder for pattern (already folded) in content. It tries
// the direct search, which reads only the bytes near candidates; if a
// pathological file makes that too costly, it switches to folding the
// whole file, which costs one copy of it but is linear in every case.
func find(content []byte, pattern string) finder {
	return &switchingFinder{content: content, pattern: pattern, cur: newDirectFinder(content, pattern)}
}

type switchingFinder struct {
	content []byte
	pattern string
	cur     finder
	folded  bool
	// overlaps replays the calls so far, should the search switch.
	overlaps []bool
}

func (f *switchingFinder) next(overlap bool) (int, int, bool) {
	if !f.folded {
		d := f.cur.(*directFinder)
		s, e, ok := d.next(overlap)
		if !d.gaveUp {
			if ok {
				f.overlaps = append(f.overlaps, overlap)
			}
			return s, e, ok
		}
		f.cur, f.folded = newFoldedFinder(f.content, f.pattern), true
		for _, o := range f.overlaps {
			f.cur.next(o)
		}
	}
	return f.cur.next(overlap)
}

// directFinder searches the file as it is: it looks for the pattern's first
// line (or, for a pattern starting with a line break, for line breaks) and
// checks the rest of the pattern from there, taking each line break in the
// pattern as LF or CRLF.
type directFinder struct {
	content []byte
	lines   [][]byte // the pattern split at its line breaks
	started bool
	s, e    int // the previous occurrence
	// work counts bytes compared; past budget the finder gives up.
	work, budget int
	gaveUp       bool
}

func newDirectFinder(content []byte, pattern string) *directFinder {
	return &directFinder{
		content: content,
		lines:   bytes.Split([]byte(pattern), []byte("\n")),
		budget:  2*len(content) + 1<<16,
	}
}

func (d *directFinder) next(overlap bool) (int, int, bool) {
	if len(d.lines) == 1 && len(d.lines[0]) == 0 {
		return 0, 0, false // the empty pattern occurs nowhere worth naming
	}
	from := 0
	switch {
	case !d.started:
		d.started = true
	case overlap:
		from = d.s + 1
	default:
		from = d.e
	}
	for from <= len(d.content) {
		s := d.candidate(from)
		if s < 0 {
			return 0, 0, false
		}
		if e, ok := d.verify(s); ok {
			d.s, d.e = s, e
			return s, e, true
		}
		from = s + 1
		if d.work > d.budget {
			d.gaveUp = true
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// candidate is the next place at or after from where the pattern may start.
func (d *directFinder) candidate(from int) int {
	c := d.content
	if first := d.lines[0]; len(first) > 0 {
		if i := index(c[from:], first); i >= 0 {
			return from + i
		}
		return -1
	}
	i := bytes.IndexByte(c[from:], '\n')
	if i < 0 {
		return -1
	}
	lf := from + i
	if lf > from && c[lf-1] == '\r' {
		return lf - 1
	}
	return lf
}

// verify checks the whole pattern at s, its first line included, and
// returns where the occurrence ends.
func (d *directFinder) verify(s int) (int, bool) {
	c := d.content
	if splitsPair(c, s) {
		return 0, false
	}
	q := s
	for k, line := range d.lines {
		if k > 0 {
			d.work++
			switch {
			case q+1 < len(c) && c[q] == '\r' && c[q+1] == '\n':
				q += 2
			case q < len(c) && c[q] == '\n' && (q == 0 || c[q-1] != '\r'):
				// (An LF after a CR the pattern itself matched would be half
				// of a pair: no line break of its own.)
				q++
			default:
				return 0, false
			}
		}
		d.work += len(line)
		if !bytes.HasPrefix(c[q:], line) {
			return 0, false
		}
		q += len(line)
	}
	if splitsPair(c, q) {
		return 0, false
	}
	return q, true
}

// splitsPair reports whether offset p lies between a CR and its LF.
func splitsPair(b []byte, p int) bool {
	return p > 0 && p < len(b) && b[p-1] == '\r' && b[p] == '\n'
}

// foldedFinder searches a copy of the file with every CRLF folded to LF,
// mapping what it finds back to the file's own offsets.
type foldedFinder struct {
	f       folded
	pattern []byte
	started bool
	p       int // the previous occurrence, in the folded text
}

func newFoldedFinder(content []byte, pattern string) *foldedFinder {
	return &foldedFinder{f: fold(content), pattern: []byte(pattern)}
}

func (ff *foldedFinder) next(overlap bool) (int, int, bool) {
	from := 0
	switch {
	case !ff.started:
		ff.started = true
	case overlap:
		from = ff.p + 1
	default:
		from = ff.p + len(ff.pattern)
	}
	if from > len(ff.f.text) {
		return 0, 0, false
	}
	i := index(ff.f.text[from:], ff.pattern)
	if i < 0 {
		return 0, 0, false
	}
	ff.p = from + i
	return ff.f.orig(ff.p), ff.f.orig(ff.p + len(ff.pattern)), true
}

// orig maps an offset in the folded text to the original bytes. A match
// starting on a folded LF starts on its CR; a match ending just after a
// folded LF ends just after the original LF.
func (f folded) orig(p int) int {
	return p + sort.SearchInts(f.crs, p)
}
