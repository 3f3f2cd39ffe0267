// Package jsonscan checks and walks JSON text without decoding it: one
// pass, no allocation, recursion bounded by a depth limit. The daemon uses
// it to refuse a message before anything decodes it (nested too deeply,
// too many values, not JSON at all) and to find a message's fields; the
// tool framework uses its pieces to check arguments against their schema
// in the same single pass. Fields then decodes a checked object into its
// struct as encoding/json would, without encoding/json's second check.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Fault says why a scan stopped.
type Fault uint8

const (
	OK     Fault = iota
	Syntax       // not JSON
	Depth        // nested deeper than the limit
	Values       // more values than the limit
)

// Scanner checks JSON text in B from position I. It accepts exactly what
// encoding/json.Valid accepts, within its limits. Each method that scans
// a piece returns false and sets Fault when the text is not JSON there or
// a limit is passed; the first fault sticks.
type Scanner struct {
	B []byte
	I int
	// MaxDepth bounds how deeply objects and arrays nest; MaxValues how
	// many values (objects, arrays, strings, numbers, literals) the text
	// holds. Zero means no limit.
	MaxDepth, MaxValues int
	Fault               Fault

	depth, values int
}

// Fail records f, unless a fault is already recorded, and returns false.
func (s *Scanner) Fail(f Fault) bool {
	if s.Fault == OK {
		s.Fault = f
	}
	return false
}

// Space moves past white space.
func (s *Scanner) Space() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Peek is the byte at I after white space, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.Space()
	if s.I >= len(s.B) {
		return 0
	}
	return s.B[s.I]
}

// Count counts one value against MaxValues.
func (s *Scanner) Count() bool {
	s.values++
	if s.MaxValues > 0 && s.values > s.MaxValues {
		return s.Fail(Values)
	}
	return true
}

// Enter counts one level of nesting against MaxDepth; Leave undoes it.
func (s *Scanner) Enter() bool {
	s.depth++
	if s.MaxDepth > 0 && s.depth > s.MaxDepth {
		return s.Fail(Depth)
	}
	return true
}

// Leave ends a level Enter began.
func (s *Scanner) Leave() { s.depth-- }

// Value scans one value, after any white space.
func (s *Scanner) Value() bool {
	if !s.Count() {
		return false
	}
	switch c := s.Peek(); {
	case c == '"':
		return s.String()
	case c == '{':
		return s.Object(nil)
	case c == '[':
		return s.Array()
	case c == '-' || ('0' <= c && c <= '9'):
		return s.Number()
	case c == 't':
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Literal("null")
	}
	return s.Fail(Syntax)
}

// Literal scans true, false or null.
func (s *Scanner) Literal(lit string) bool {
	if !bytes.HasPrefix(s.B[s.I:], []byte(lit)) {
		return s.Fail(Syntax)
	}
	s.I += len(lit)
	return true
}

// Object scans {...}, I at the brace. member, when set, sees each member:
// the key still quoted, and the value's text.
func (s *Scanner) Object(member func(key, value []byte)) bool {
	if !s.Enter() {
		return false
	}
	s.I++ // '{'
	if s.Peek() == '}' {
		s.I++
		s.Leave()
		return true
	}
	for {
		if s.Peek() != '"' {
			return s.Fail(Syntax)
		}
		k := s.I
		if !s.String() {
			return false
		}
		key := s.B[k:s.I]
		if !s.Colon() {
			return false
		}
		v := s.I
		if !s.Value() {
			return false
		}
		if member != nil {
			member(key, s.B[v:s.I])
		}
		switch more, ok := s.Next('}'); {
		case !ok:
			return false
		case !more:
			s.Leave()
			return true
		}
	}
}

// Array scans [...], I at the bracket.
func (s *Scanner) Array() bool {
	if !s.Enter() {
		return false
	}
	s.I++ // '['
	if s.Peek() == ']' {
		s.I++
		s.Leave()
		return true
	}
	for {
		if !s.Value() {
			return false
		}
		switch more, ok := s.Next(']'); {
		case !ok:
			return false
		case !more:
			s.Leave()
			return true
		}
	}
}

// Colon moves past the colon after a key and the space after it.
func (s *Scanner) Colon() bool {
	if s.Peek() != ':' {
		return s.Fail(Syntax)
	}
	s.I++
	s.Space()
	return true
}

// Next moves past the comma after a member or element (more is true) or
// past the closing byte end (more is false).
func (s *Scanner) Next(end byte) (more, ok bool) {
	switch s.Peek() {
	case ',':
		s.I++
		s.Space()
		return true, true
	case end:
		s.I++
		return false, true
	}
	return false, s.Fail(Syntax)
}

// SWAR constants: a byte of each, repeated in a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun moves i past the plain ASCII at b[i:], eight bytes at a time,
// to the first byte a string's reader must look at: a control character,
// a quote, a backslash, or a byte of a multi-byte character. In the last
// seven bytes of b it stops at i, and the reader's own loop looks at them
// one by one. A file's content is one long string: reading it so takes a
// fifth of the daemon's time for a 1 MiB write_file (bench/wire).
//
// In a word that holds such a byte, the lowest byte marked is one: a
// borrow of the subtractions only marks bytes above a byte that is one.
// So the reader lands on it at once: before, it stepped to it a byte at a
// time, calling plainRun again at each, which for a file's content (an
// escaped line break every few dozen bytes) cost a third of the scan.
func plainRun(b []byte, i int) int {
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		if m := (((w-ones*0x20)|((w^(ones*'"'))-ones)|((w^(ones*'\\'))-ones))&^w | w) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	return i
}

// String scans a string, I at its opening quote.
func (s *Scanner) String() bool {
	b := s.B
	i := s.I + 1
	for {
		i = plainRun(b, i)
		if i >= len(b) {
			s.I = i
			return s.Fail(Syntax)
		}
		switch c := b[i]; {
		case c == '"':
			s.I = i + 1
			return true
		case c == '\\':
			if i+1 >= len(b) {
				s.I = i
				return s.Fail(Syntax)
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					s.I = i
					return s.Fail(Syntax)
				}
				i += 6
			default:
				s.I = i
				return s.Fail(Syntax)
			}
		case c < 0x20:
			s.I = i
			return s.Fail(Syntax)
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Number scans a number.
func (s *Scanner) Number() bool {
	b, i := s.B, s.I
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		s.I = i
		return s.Fail(Syntax)
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			s.I = j
			return s.Fail(Syntax)
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			s.I = j
			return s.Fail(Syntax)
		}
		i = j
	}
	s.I = i
	return true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// Top checks body as one JSON text and calls member for each member of
// its top-level object. top is the text's first byte ('{' for an object);
// for any other value member is never called. Members seen before a fault
// have been reported.
func Top(body []byte, maxDepth, maxValues int, member func(key, value []byte)) (top byte, fault Fault) {
	s := Scanner{B: body, MaxDepth: maxDepth, MaxValues: maxValues}
	top = s.Peek()
	switch top {
	case 0:
		return 0, Syntax
	case '{':
		if s.Count() {
			s.Object(member)
		}
	default:
		s.Value()
	}
	if s.Space(); s.Fault == OK && s.I != len(s.B) {
		s.Fail(Syntax)
	}
	return top, s.Fault
}

// Members calls member for each member of the object raw, which must be
// JSON already checked (a part of a text Top accepted). It returns false
// if raw is not an object. Strings are skipped by their quotes alone, so a
// long string costs a memchr, not a second check.
func Members(raw []byte, member func(key, value []byte)) bool {
	w := walker{b: raw}
	w.space()
	if w.i >= len(w.b) || w.b[w.i] != '{' {
		return false
	}
	w.i++
	for {
		w.space()
		if w.i >= len(w.b) {
			return false
		}
		switch w.b[w.i] {
		case '}':
			return true
		case ',':
			w.i++
			continue
		}
		k := w.i
		w.skip()
		key := w.b[k:w.i]
		w.space()
		w.i++ // ':'
		w.space()
		v := w.i
		w.skip()
		member(key, w.b[v:w.i])
	}
}

// walker moves over JSON known to be valid.
type walker struct {
	b []byte
	i int
}

func (w *walker) space() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\n' || w.b[w.i] == '\r') {
		w.i++
	}
}

// skip moves past one value.
func (w *walker) skip() {
	if w.i >= len(w.b) {
		return
	}
	switch w.b[w.i] {
	case '"':
		w.i = StringEnd(w.b, w.i)
	case '{', '[':
		depth := 0
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case '"':
				w.i = StringEnd(w.b, w.i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					w.i++
					return
				}
			}
			w.i++
		}
	default:
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			w.i++
		}
	}
}

// SkipString moves past a string, I at its opening quote, finding its
// closing quote many bytes at a time (bytes.IndexByte) without checking
// what lies between: for a pass over text that another pass checks, such
// as Unquote when it decodes the string. It fails (Syntax) where the
// string has no closing quote.
func (s *Scanner) SkipString() bool {
	end, closed := stringEnd(s.B, s.I)
	s.I = end
	if !closed {
		return s.Fail(Syntax)
	}
	return true
}

// StringEnd returns the index just past the string that opens at b[i]: past
// the first quote not escaped by an odd run of backslashes, or len(b).
func StringEnd(b []byte, i int) int {
	end, _ := stringEnd(b, i)
	return end
}

// stringEnd is StringEnd, and whether the string has its closing quote.
func stringEnd(b []byte, i int) (end int, closed bool) {
	start := i
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b), false
		}
		i += j
		n := 0
		for k := i - 1; k > start && b[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i, true
		}
	}
}

// Unquote decodes a JSON string, quotes included, as encoding/json decodes
// one, and reports false for one that is not valid JSON (a raw control
// character, a quote inside, a bad escape), so that a pass before it may
// look through strings without checking them (see StringEnd): escapes
// decoded, a surrogate pair joined, and invalid UTF-8 or a lone surrogate
// turned into U+FFFD.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	var b strings.Builder
	b.Grow(len(s))
	start, i := 0, 0 // s[start:i] is plain, not yet written
	for i < len(s) {
		if i = plainRun(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.Write(s[start:i])
				b.WriteRune(utf8.RuneError)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		if c != '\\' {
			if c < 0x20 || c == '"' {
				return "", false // a control character, or a quote inside: not one JSON string
			}
			i++
			continue
		}
		b.Write(s[start:i])
		if i+1 >= len(s) {
			return "", false
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2, ok := hex4(s[i+2:]); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							b.WriteRune(pair)
							i += 6
							start = i
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			start = i
			continue
		default:
			return "", false
		}
		i += 2
		start = i
	}
	b.Write(s[start:])
	return b.String(), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
