package edit

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on the excerpt shown with a miss: enough to copy from, not so much
// that the error crowds out the model's context.
const (
	excerptContext      = 2
	maxExcerptLines     = 40
	maxExcerptLineBytes = 240
)

// excerpt renders lines start..end (1-based) with a little context, in the
// gutter read_file uses, so the model can copy from it as from a read.
func excerpt(idx lineIndex, start, end int) string {
	from := max(1, start-excerptContext)
	to := min(idx.count(), end+excerptContext)
	var b strings.Builder
	shown := 0
	for n := from; n <= to; n++ {
		if shown == maxExcerptLines {
			fmt.Fprintf(&b, "[… %d more lines; read them with read_file offset=%d]\n", to-n+1, n)
			break
		}
		line := idx.line(n - 1)
		b.WriteString(strconv.Itoa(n))
		b.WriteByte('\t')
		if len(line) > maxExcerptLineBytes {
			cut := maxExcerptLineBytes
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			fmt.Fprintf(&b, "%s … [line cut at %d of %d bytes]", line[:cut], cut, len(line))
		} else {
			b.Write(line)
		}
		b.WriteByte('\n')
		shown++
	}
	return b.String()
}
