package diff

import (
	"strconv"
	"strings"
)

// Outline is what a rendered unified diff changes, counted from its text:
// a diff of several files one after another (a command's change set), as
// Unified renders each, or a move's "rename from/to" pair.
type Outline struct {
	// Files names each file the diff changes, as its header names it (the
	// new name, or the old one for a deletion).
	Files   []string
	Hunks   int
	Added   int
	Removed int
	// Lines is the number of lines of the diff's text.
	Lines int
}

// Outlines reads a unified diff. Inside a hunk, lines are counted by the
// hunk header's ranges, so a removed line that reads "-- x" is never taken
// for a file header.
func Outlines(unified string) Outline {
	var o Outline
	var oldLeft, newLeft int
	var oldName string
	for _, line := range strings.SplitAfter(unified, "\n") {
		if line == "" {
			continue
		}
		o.Lines++
		text := strings.TrimRight(line, "\r\n")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(text, "+"):
				o.Added++
				newLeft--
			case strings.HasPrefix(text, "-"):
				o.Removed++
				oldLeft--
			case strings.HasPrefix(text, `\`):
			default:
				oldLeft--
				newLeft--
			}
			continue
		}
		switch {
		case strings.HasPrefix(text, "@@ "):
			oldLeft, newLeft = hunkRange(text)
			o.Hunks++
		case strings.HasPrefix(text, "--- "):
			oldName = strings.TrimPrefix(text, "--- ")
		case strings.HasPrefix(text, "+++ "):
			name := strings.TrimPrefix(text, "+++ ")
			if name == "/dev/null" {
				name = oldName
			}
			o.Files = append(o.Files, trimSide(name))
		case strings.HasPrefix(text, "rename to "):
			o.Files = append(o.Files, strings.TrimPrefix(text, "rename to "))
		case strings.HasPrefix(text, "Binary files "):
			o.Files = append(o.Files, strings.TrimSuffix(strings.TrimPrefix(text, "Binary files "), " differ"))
		}
	}
	return o
}

// trimSide drops git's a/ or b/ from a header's name.
func trimSide(name string) string {
	for _, p := range []string{"a/", "b/", `"a/`, `"b/`} {
		if strings.HasPrefix(name, p) {
			return strings.Replace(name, p[len(p)-2:], "", 1)
		}
	}
	return name
}

// hunkRange reads the line counts of "@@ -a,b +c,d @@" (a count left out
// is 1).
func hunkRange(header string) (oldLines, newLines int) {
	f := strings.Fields(header)
	if len(f) < 3 {
		return 0, 0
	}
	return rangeCount(strings.TrimPrefix(f[1], "-")), rangeCount(strings.TrimPrefix(f[2], "+"))
}

func rangeCount(r string) int {
	_, n, ok := strings.Cut(r, ",")
	if !ok {
		return 1
	}
	c, err := strconv.Atoi(n)
	if err != nil {
		return 0
	}
	return c
}
