package convert

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// sniffLen is how much of a body decides whether its bytes are binary, as
// git decides for a file.
const sniffLen = 8000

// LooksBinary reports whether a body labelled text holds binary data: a
// NUL byte in its first bytes (unless it is UTF-16 or UTF-32 text, by its
// byte-order mark or its declared charset, where NULs are half the bytes),
// or mostly control bytes. Such a body is refused like a binary type.
func LooksBinary(body []byte, contentType string) bool {
	head := body[:min(len(body), sniffLen)]
	if wideCharset(head, contentType) {
		return false
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	controls := 0
	for _, b := range head {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1b {
			controls++
		}
	}
	return controls > len(head)/10
}

// wideCharset reports text in UTF-16 or UTF-32.
func wideCharset(head []byte, contentType string) bool {
	if bytes.HasPrefix(head, []byte{0xff, 0xfe}) || bytes.HasPrefix(head, []byte{0xfe, 0xff}) || bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}) {
		return true
	}
	_, name, _ := charset.DetermineEncoding(nil, contentType)
	return strings.HasPrefix(name, "utf-16") || strings.HasPrefix(name, "utf-32")
}

// Visible makes fetched text safe to show to a model, in a chat, or on a
// terminal: line breaks become "\n" (a CRLF is one line break), tabs
// stay, and every other control character (C0, DEL, C1: the stuff of
// terminal escape sequences) is written as a \x or \u escape, as are the
// bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069),
// which can make text read differently from what it is. Nothing a page
// sends reaches a reader raw.
func Visible(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && strings.HasPrefix(s[i:], "\r\n"):
			// The newline that follows stands for both.
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte of s that Visible changes, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return i
		case c == 0xc2 || c == 0xe2: // where C1 controls and the bidi controls start
			if r, _ := utf8.DecodeRuneInString(s[i:]); unsafeRune(r) {
				return i
			}
		}
	}
	return -1
}

// unsafeRune reports the characters above ASCII that Visible escapes: C1
// controls and the bidirectional embeddings, overrides and isolates.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
