package diff

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// context is the number of unchanged lines shown around each change, as in
// diff -u and git. Changes separated by at most 2·context unchanged lines
// share a hunk, so hunks never overlap and can be kept or dropped one by one.
const context = 3

// Hunk is one group of nearby changes, the unit a user keeps or drops.
// The four numbers are those of its unified diff header: Start is 1-based,
// except that an empty range starts at the line before it (0 for the start
// of the file), as in "@@ -0,0 +1,2 @@".
type Hunk struct {
	ID                 int // 1 for the first hunk, then 2, 3, ...
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Line is one line of a hunk.
//
// Text is the line exactly as it is in the file, terminator included ("\n",
// "\r\n", or none for a last line without newline): the hunk must be able to
// reproduce the file byte for byte, and a change of line ending alone is a
// real change that has to be visible. Trim it for display.
type Line struct {
	Kind   byte // ' ' unchanged, '-' removed, '+' added
	Text   string
	OldNum int // 1-based line number in the old file; 0 for an added line
	NewNum int // 1-based line number in the new file; 0 for a removed line
}

// Hunks returns the changes from a to b, nil when they are equal. It works
// on any bytes, text or not.
func Hunks(a, b []byte) []Hunk {
	return hunksWith(a, b, defaultLimits)
}

func hunksWith(a, b []byte, lim limits) []Hunk {
	if bytes.Equal(a, b) {
		return nil
	}
	// Identical stretches at the start and the end can only ever show as
	// context: cut them off at line boundaries, keeping the context lines
	// beside the change, so that a one-line edit of a large file costs
	// about the size of the change, not of the file.
	pre, suf := trimmable(a, b)
	hs := compute(a[pre:len(a)-suf], b[pre:len(b)-suf], lim).hunks()
	if shift := bytes.Count(a[:pre], []byte{'\n'}); shift > 0 {
		for i := range hs {
			hs[i].OldStart += shift
			hs[i].NewStart += shift
			for j := range hs[i].Lines {
				if l := &hs[i].Lines[j]; l.OldNum > 0 {
					l.OldNum += shift
				}
				if l := &hs[i].Lines[j]; l.NewNum > 0 {
					l.NewNum += shift
				}
			}
		}
	}
	return hs
}

// trimmable returns how many bytes at the start (pre) and at the end (suf)
// of a and b are the same whole lines that lie more than context lines away
// from any difference. Both cuts fall on line starts, so what is left
// between them splits into the same lines as the whole files would.
func trimmable(a, b []byte) (pre, suf int) {
	n := min(len(a), len(b))
	p := commonPrefix(a, b, n)
	pre = bytes.LastIndexByte(a[:p], '\n') + 1 // the start of the first differing line
	for k := 0; k < context && pre > 0; k++ {
		pre = bytes.LastIndexByte(a[:pre-1], '\n') + 1
	}
	s := commonSuffix(a, b, n-pre)
	// The suffix starts at a line start: just after its first newline.
	i := bytes.IndexByte(a[len(a)-s:], '\n')
	if i < 0 {
		return pre, 0
	}
	suf = s - i - 1
	for k := 0; k < context && suf > 0; k++ {
		j := bytes.IndexByte(a[len(a)-suf:], '\n')
		if j < 0 {
			return pre, 0
		}
		suf -= j + 1
	}
	return pre, suf
}

// commonPrefix is the length of the longest common prefix of a and b,
// at most n; compared in blocks, since it usually spans most of a file.
func commonPrefix(a, b []byte, n int) int {
	const block = 4096
	p := 0
	for p+block <= n && bytes.Equal(a[p:p+block], b[p:p+block]) {
		p += block
	}
	for p < n && a[p] == b[p] {
		p++
	}
	return p
}

// commonSuffix is the length of the longest common suffix of a and b, at
// most n.
func commonSuffix(a, b []byte, n int) int {
	const block = 4096
	la, lb := len(a), len(b)
	s := 0
	for s+block <= n && bytes.Equal(a[la-s-block:la-s], b[lb-s-block:lb-s]) {
		s += block
	}
	for s < n && a[la-s-1] == b[lb-s-1] {
		s++
	}
	return s
}

// block is a maximal run of changed lines: a[i0:i1] replaced by b[j0:j1].
type block struct{ i0, i1, j0, j1 int }

func (s script) blocks() []block {
	var bs []block
	i, j := 0, 0
	for i < len(s.del) || j < len(s.ins) {
		if (i < len(s.del) && s.del[i]) || (j < len(s.ins) && s.ins[j]) {
			blk := block{i0: i, j0: j}
			for i < len(s.del) && s.del[i] {
				i++
			}
			for j < len(s.ins) && s.ins[j] {
				j++
			}
			blk.i1, blk.j1 = i, j
			bs = append(bs, blk)
		} else {
			i++
			j++
		}
	}
	return bs
}

func (s script) hunks() []Hunk {
	bs := s.blocks()
	var hs []Hunk
	for k := 0; k < len(bs); {
		// Gather the blocks close enough to share context.
		first, last := bs[k], bs[k]
		for k++; k < len(bs) && bs[k].i0-last.i1 <= 2*context; k++ {
			last = bs[k]
		}
		// Unchanged lines pair up one to one, so the context before and
		// after is the same number of lines on both sides.
		before := min(context, first.i0)
		after := min(context, len(s.del)-last.i1)
		i, j := first.i0-before, first.j0-before
		iEnd, jEnd := last.i1+after, last.j1+after

		h := Hunk{ID: len(hs) + 1, OldLines: iEnd - i, NewLines: jEnd - j}
		h.OldStart, h.NewStart = startLine(i, h.OldLines), startLine(j, h.NewLines)
		h.Lines = make([]Line, 0, (iEnd-i)+(jEnd-j))
		for i < iEnd || j < jEnd {
			switch {
			case i < iEnd && s.del[i]:
				h.Lines = append(h.Lines, Line{Kind: '-', Text: string(s.a.at(i)), OldNum: i + 1})
				i++
			case j < jEnd && s.ins[j]:
				h.Lines = append(h.Lines, Line{Kind: '+', Text: string(s.b.at(j)), NewNum: j + 1})
				j++
			default:
				h.Lines = append(h.Lines, Line{Kind: ' ', Text: string(s.a.at(i)), OldNum: i + 1, NewNum: j + 1})
				i++
				j++
			}
		}
		hs = append(hs, h)
	}
	return hs
}

// startLine gives the header's start for a range beginning at 0-based index
// i: the 1-based first line, or for an empty range the line before it.
func startLine(i, n int) int {
	if n == 0 {
		return i
	}
	return i + 1
}

// ApplyHunks applies to a the hunks whose IDs are in keep, leaving the rest
// of a as it is, byte for byte. hunks must have been computed from a (by
// Hunks(a, b) for some b); ApplyHunks(a, Hunks(a, b), every ID) is b.
//
// The unchanged and removed lines are taken from a itself, not from the hunk,
// so what is kept of a is exactly a. Hunks that do not fit a (computed from
// another version of it) are clamped to it rather than trusted: the result is
// then wrong, but ApplyHunks does not panic.
func ApplyHunks(a []byte, hunks []Hunk, keep []int) []byte {
	lines := splitLines(a)
	hunks = slices.Clone(hunks)
	slices.SortStableFunc(hunks, func(x, y Hunk) int { return x.OldStart - y.OldStart })

	kept := make(map[int]bool, len(keep))
	for _, id := range keep {
		kept[id] = true
	}

	out := make([]byte, 0, len(a))
	i := 0 // next line of a to copy
	for _, h := range hunks {
		if !kept[h.ID] {
			continue
		}
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart
		}
		start = min(max(start, i), lines.len())
		out = append(out, a[lines.start[i]:lines.start[start]]...)
		i = start
		for _, l := range h.Lines {
			switch l.Kind {
			case ' ':
				if i < lines.len() {
					out = append(out, lines.at(i)...)
				}
				i++
			case '-':
				i++
			case '+':
				out = append(out, l.Text...)
			}
		}
		i = min(i, lines.len())
	}
	return append(out, a[lines.start[i]:]...)
}

// Display renders hunks for a person deciding which to keep: a header per
// hunk naming its ID, then each line numbered in the file it belongs to
// (the new file for unchanged lines):
//
//	@@ -12,4 +12,4 @@ hunk 1
//	  12 │  context
//	  13 │ -old text
//	  13 │ +new text
//
// Bytes that a terminal would not show, or would obey, are drawn as visible
// symbols: control characters as their Unicode pictures (a CR as ␍, so a
// CRLF→LF change shows), a BOM as <BOM>. A last line without newline is
// followed by the usual "\ No newline at end of file".
func Display(h []Hunk) string {
	width := 4
	for _, hk := range h {
		width = max(width, len(strconv.Itoa(max(hk.OldStart+hk.OldLines, hk.NewStart+hk.NewLines))))
	}
	var sb strings.Builder
	for _, hk := range h {
		fmt.Fprintf(&sb, "@@ -%s +%s @@ hunk %d\n", rangeString(hk.OldStart, hk.OldLines), rangeString(hk.NewStart, hk.NewLines), hk.ID)
		for _, l := range hk.Lines {
			num := l.NewNum
			if l.Kind == '-' {
				num = l.OldNum
			}
			fmt.Fprintf(&sb, "%*d │ %c%s\n", width, num, l.Kind, visible(l.Text))
			if !strings.HasSuffix(l.Text, "\n") {
				fmt.Fprintf(&sb, "%*s │ \\ No newline at end of file\n", width, "")
			}
		}
	}
	return sb.String()
}

// visible drops the line's "\n" and makes invisible or active bytes visible.
func visible(text string) string {
	text = strings.TrimSuffix(text, "\n")
	text = strings.ReplaceAll(text, "\uFEFF", "<BOM>")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return r
		case r < 0x20:
			return 0x2400 + r // ␀ … ␟
		case r == 0x7F:
			return 0x2421 // ␡
		}
		return r
	}, text)
}

// rangeString formats a hunk header range as diff -u does: "start,count",
// with ",1" left out.
func rangeString(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}
