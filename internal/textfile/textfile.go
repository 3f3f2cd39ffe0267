// Package textfile knows the shape of a text file's bytes: its byte-order
// mark, its line endings, whether it is text at all, and which of its lines an agent has seen.
// Tools use it to read
// files faithfully and to write edits back in the file's own conventions.
package textfile

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// BOM is the UTF-8 byte-order mark.
const BOM = "\uFEFF"

// SniffLen is how much of a file decides whether it is binary, as git does.
const SniffLen = 8000

// IsBinary reports whether data looks like a binary file: a NUL byte in its
// first few kilobytes.
func IsBinary(data []byte) bool {
	if len(data) > SniffLen {
		data = data[:SniffLen]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// Shape is how a text file writes itself.
type Shape struct {
	// BOM is set when the file starts with a UTF-8 byte-order mark.
	BOM bool
	// EOL is the dominant line ending: "\n" or "\r\n".
	EOL string
	// Mixed is set when both endings occur.
	Mixed bool
}

// Detect reads a file's shape. A file with no line break is LF.
func Detect(data []byte) Shape {
	s := Shape{BOM: bytes.HasPrefix(data, []byte(BOM)), EOL: "\n"}
	crlf := bytes.Count(data, []byte("\r\n"))
	lf := bytes.Count(data, []byte("\n")) - crlf
	if crlf > lf {
		s.EOL = "\r\n"
	}
	s.Mixed = crlf > 0 && lf > 0
	return s
}

// StripBOM returns data without a leading byte-order mark.
func StripBOM(data []byte) []byte {
	return bytes.TrimPrefix(data, []byte(BOM))
}

// ValidUTF8 reports whether data is valid UTF-8, and if not, the byte
// offset of the first invalid sequence.
func ValidUTF8(data []byte) (bool, int) {
	if utf8.Valid(data) {
		return true, -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return false, i
		}
		i += n
	}
	return false, -1
}

// CountLines counts lines the way an editor numbers them: a trailing
// newline does not start a new line, an empty file has none.
func CountLines(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// ToLF turns every CRLF into LF.
func ToLF(s string) string {
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// ToEOL writes s with the line ending eol ("\n" or "\r\n"), whatever
// endings s used.
func ToEOL(s, eol string) string {
	s = ToLF(s)
	if eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}
