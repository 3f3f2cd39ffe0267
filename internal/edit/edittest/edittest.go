// Package edittest generates the large source files the edit benchmarks
// work on, shared by the matcher's benchmarks and the edit tools', so the
// two measure the same input.
package edittest

import (
	"fmt"
	"strings"
)

// Needle is the one line BigSource puts in the middle of its file.
const Needle = "\tmarker := uniqueNeedle()"

// BigSource builds about size bytes of source-like lines, each unique,
// ending in eol, with Needle in the middle.
func BigSource(size int, eol string) string {
	var b strings.Builder
	b.Grow(size + 100)
	marked := false
	for i := 0; b.Len() < size; i++ {
		if !marked && b.Len() >= size/2 {
			b.WriteString(Needle + eol)
			marked = true
		}
		fmt.Fprintf(&b, "\tvalue%07d := compute(%d, \"some text\") // comment%s", i, i*7, eol)
	}
	return b.String()
}
