package edit

import (
	"bytes"
	"sort"
)

// lineIndex knows where each line of a text starts, numbering lines as an
// editor does: a final line break does not open another line.
type lineIndex struct {
	text   []byte
	starts []int
}

func indexLines(b []byte) lineIndex {
	if len(b) == 0 {
		return lineIndex{text: b}
	}
	starts := make([]int, 1, len(b)/32+1)
	for p := 0; ; {
		i := bytes.IndexByte(b[p:], '\n')
		if i < 0 || p+i+1 == len(b) {
			break
		}
		p += i + 1
		starts = append(starts, p)
	}
	return lineIndex{text: b, starts: starts}
}

// count is the number of lines.
func (x lineIndex) count() int { return len(x.starts) }

// line returns line i (0-based) without its line break.
func (x lineIndex) line(i int) []byte {
	end := len(x.text)
	if i+1 < len(x.starts) {
		end = x.starts[i+1]
	}
	l := x.text[x.starts[i]:end]
	l = bytes.TrimSuffix(l, []byte("\n"))
	return bytes.TrimSuffix(l, []byte("\r"))
}

// lineOf returns the 0-based line holding byte offset p.
func (x lineIndex) lineOf(p int) int {
	return sort.SearchInts(x.starts, p+1) - 1
}

// endsWithBreak reports whether line i is followed by a line break.
func (x lineIndex) endsWithBreak(i int) bool {
	return i+1 < len(x.starts) || (len(x.text) > 0 && x.text[len(x.text)-1] == '\n')
}
