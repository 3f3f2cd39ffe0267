package edit

import (
	"bytes"
)

var crlf = []byte("\r\n")

// folded is a text with every CRLF pair folded into a single LF, plus where
// the folded pairs were. Matching in the folded text makes LF and CRLF
// equal while keeping each pair whole: a match can never begin or end
// between the CR and the LF of one line break, so a replacement can never
// leave a lone CR or LF behind.
type folded struct {
	text []byte
	// crs are the offsets, in text and ascending, of the LFs that were CRLF.
	crs []int
}

// fold folds b. A text without CR is returned as is, without a copy, which
// keeps the common LF-only file free of any extra work.
func fold(b []byte) folded {
	if bytes.IndexByte(b, '\r') < 0 {
		return folded{text: b}
	}
	out := make([]byte, 0, len(b))
	var crs []int
	for rest := b; ; {
		i := bytes.Index(rest, crlf)
		if i < 0 {
			out = append(out, rest...)
			break
		}
		out = append(out, rest[:i]...)
		crs = append(crs, len(out))
		out = append(out, '\n')
		rest = rest[i+2:]
	}
	return folded{text: out, crs: crs}
}

// dominantEOL is the line ending most of b uses; LF when there is none.
func dominantEOL(b []byte) string {
	crlfs := bytes.Count(b, crlf)
	if crlfs > 0 && crlfs > bytes.Count(b, []byte("\n"))-crlfs {
		return "\r\n"
	}
	return "\n"
}

// eolAt picks the line ending for text replacing b[s:e]: the ending the
// replaced text itself uses, or, when it holds no line break, the ending of
// the line it sits on. In a file with mixed endings only the replaced lines
// take a decision; the rest of the file is never rewritten.
func eolAt(b []byte, s, e int, fileEOL func() string) string {
	region := b[s:e]
	crlfs := bytes.Count(region, crlf)
	lfs := bytes.Count(region, []byte("\n")) - crlfs
	switch {
	case crlfs > lfs:
		return "\r\n"
	case lfs > crlfs:
		return "\n"
	case crlfs > 0:
		return fileEOL()
	}
	if i := bytes.IndexByte(b[e:], '\n'); i >= 0 {
		return breakAt(b, e+i)
	}
	if i := bytes.LastIndexByte(b[:s], '\n'); i >= 0 {
		return breakAt(b, i)
	}
	return fileEOL()
}

// breakAt names the line break whose LF is at b[i].
func breakAt(b []byte, i int) string {
	if i > 0 && b[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
