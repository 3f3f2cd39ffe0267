// Package edit is the pure core of Tether's file edits: exact string
// replacement that respects a file's line endings, and, when the text to
// replace is not there, a bounded search for the closest region of the file
// with an account of what differs. It does no I/O, so it can be fuzzed.
//
// Matching is exact except for one thing: a line break in the text to
// replace matches either LF or CRLF in the file, so text copied out of
// read_file (which shows no CRs) edits a CRLF file. It never applies a
// fuzzy match: Closest only explains a miss.
package edit

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/tether-dev/tether/internal/textfile"
)

// Edit is one replacement.
type Edit struct {
	Old, New string
	// ReplaceAll replaces every occurrence; otherwise Old must occur once.
	ReplaceAll bool
}

// Span is where a replacement's new text landed in the edited content: the
// lines (1-based, inclusive) it occupies, End being Start-1 when the new
// text is empty, and the byte offset it starts at.
type Span struct{ Start, End, Offset int }

// Applied is the outcome of a successful edit.
type Applied struct {
	Content []byte
	// Spans are where each replacement landed, in order.
	Spans []Span
}

// Errors for edits that are malformed before the file is even looked at.
var (
	ErrEmptyOld = errors.New("old_string is empty")
	ErrSame     = errors.New("old_string and new_string are identical")
	// ErrNoChange is an edit whose replacement leaves the bytes as they
	// were, as when old and new differ only in line endings, which the
	// file's own endings then override.
	ErrNoChange = errors.New("the edit changes nothing")
)

// NotFoundError says Old does not occur. Closest explains why.
type NotFoundError struct{}

func (*NotFoundError) Error() string { return "old_string was not found" }

// AmbiguousError says Old occurs more than once and ReplaceAll is off.
type AmbiguousError struct {
	// Count is the number of occurrences, counting overlapping ones; when
	// Capped it is only a lower bound.
	Count  int
	Capped bool
	// Lines are the 1-based lines where occurrences start, ascending, unique.
	Lines []int
}

func (e *AmbiguousError) Error() string {
	more := ""
	if e.Capped {
		more = " or more"
	}
	return fmt.Sprintf("old_string occurs %d%s times", e.Count, more)
}

// maxListed caps how many occurrences an ambiguous match enumerates, so a
// one-character old string in a 10 MB file costs a bounded amount.
const maxListed = 1000

// Apply performs e on content. content must not start with a byte-order
// mark (the caller strips and restores it). On any error content is
// untouched and the returned Applied is empty.
func Apply(content []byte, e Edit) (Applied, error) {
	if e.Old == "" {
		return Applied{}, ErrEmptyOld
	}
	if e.Old == e.New {
		return Applied{}, ErrSame
	}
	f := find(content, textfile.ToLF(e.Old))
	s, end, ok := f.next(false)
	if !ok {
		return Applied{}, &NotFoundError{}
	}
	found := []match{{s, end}}
	if e.ReplaceAll {
		for {
			s, end, ok := f.next(false)
			if !ok {
				break
			}
			found = append(found, match{s, end})
		}
	} else if s2, _, ok := f.next(true); ok {
		return Applied{}, ambiguity(content, f, s, s2)
	}

	out, spans := replace(content, found, e.New)
	if bytes.Equal(out, content) {
		return Applied{}, ErrNoChange
	}
	return Applied{Content: out, Spans: spans}, nil
}

// Contains reports whether old occurs in content, line breaks matching
// either ending as in Apply.
func Contains(content []byte, old string) bool {
	_, _, ok := find(content, textfile.ToLF(old)).next(false)
	return ok
}

// match is an occurrence: content[s:e].
type match struct{ s, e int }

// replace rebuilds content with each match replaced by repl, written in the
// line ending of the text it replaces.
func replace(content []byte, found []match, repl string) ([]byte, []Span) {
	var fileEOL string
	dominant := func() string {
		if fileEOL == "" {
			fileEOL = dominantEOL(content)
		}
		return fileEOL
	}
	removed := 0
	for _, m := range found {
		removed += m.e - m.s
	}
	// Room for every replacement even if each doubles in size as LF turns to CRLF.
	out := make([]byte, 0, len(content)-removed+len(found)*2*len(repl))
	spans := make([]Span, 0, len(found))
	line, prev := 1, 0
	for _, m := range found {
		text := textfile.ToEOL(repl, eolAt(content, m.s, m.e, dominant))
		line += bytes.Count(content[prev:m.s], []byte("\n"))
		out = append(out, content[prev:m.s]...)
		spans = append(spans, spanOf(line, len(out), text))
		out = append(out, text...)
		line += strings.Count(text, "\n")
		prev = m.e
	}
	out = append(out, content[prev:]...)
	return out, spans
}

func spanOf(start, offset int, text string) Span {
	end := start + strings.Count(text, "\n")
	if text == "" || strings.HasSuffix(text, "\n") {
		end--
	}
	return Span{start, end, offset}
}

// ambiguity lists where the pattern occurs, overlapping occurrences
// included (an old string that matches twice in "aaa" is just as
// ambiguous), given the first two and the finder that found them.
func ambiguity(content []byte, f finder, first, second int) *AmbiguousError {
	e := &AmbiguousError{}
	line, prev := 1, 0
	add := func(p int) {
		line += bytes.Count(content[prev:p], []byte("\n"))
		prev = p
		e.Count++
		if n := len(e.Lines); n == 0 || e.Lines[n-1] != line {
			e.Lines = append(e.Lines, line)
		}
	}
	add(first)
	add(second)
	for {
		p, _, ok := f.next(true)
		if !ok {
			break
		}
		if e.Count == maxListed {
			e.Capped = true
			break
		}
		add(p)
	}
	return e
}
