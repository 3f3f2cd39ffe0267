package tool

import (
	"fmt"
	"strings"
	"text/template"
	"time"
)

// DocFuncs are the functions a tool's description template may call, so
// that numbers are written the same way in every description.
var DocFuncs = template.FuncMap{
	"bytes":    func(n int) string { return HumanBytes(int64(n)) },
	"duration": HumanDuration,
}

// HumanBytes writes a size the way people read it: 2.0 MB, 4.0 KB, 12 bytes.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MB"
	case n >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KB"
	}
	return fmt.Sprintf("%d bytes", n)
}

// trimZero drops a ".0", so whole sizes read "2 MB".
func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// HumanDuration writes a duration in the largest whole unit that fits:
// "2 minutes", "90 seconds", "1.5 s" for fractions.
func HumanDuration(d time.Duration) string {
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d >= time.Second && d%time.Second == 0:
		return unit(int64(d/time.Second), "second")
	}
	return d.String()
}

// joinParagraphs turns a Markdown description into the text a model is
// given: the lines of a paragraph are joined by spaces, list items stay on
// lines of their own, and paragraphs are separated by one blank line.
func joinParagraphs(md string) string {
	var paras []string
	for _, block := range strings.Split(strings.TrimSpace(md), "\n\n") {
		var b strings.Builder
		for i, line := range strings.Split(strings.TrimSpace(block), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if i > 0 {
				if isListItem(line) {
					b.WriteByte('\n')
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(line)
		}
		if b.Len() > 0 {
			paras = append(paras, b.String())
		}
	}
	return strings.Join(paras, "\n\n")
}

func isListItem(line string) bool {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return true
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(line[i:], ". ")
}
