// Package diff shows file changes as unified diffs, and as hunks that a user
// can keep or drop one by one.
//
// Every change the agent makes is shown to the user before it lands, so a
// diff here has to be three things. Exact: GNU patch and git apply turn the
// old bytes into the new bytes, CRs, BOMs and a missing final newline
// included, because what the user approves is what gets written. Stable: the
// same two inputs always give the same diff, whatever the load on the
// machine, so nothing here reads a clock. Bounded: an agent can produce
// pathological files (huge, one enormous line, thousands of identical
// lines), and showing a diff must never stall the session; past a fixed
// amount of work a region is shown as removed and re-added, which is still
// correct, only larger.
//
// Unified and Hunks share one line diff, so the text the user reads and the
// hunks they accept always agree.
package diff

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tether-dev/tether/internal/textfile"
)

// Unified returns the unified diff (3 lines of context) that turns a, named
// oldName, into b, named newName; "" when they are equal. For a created file
// pass oldName "/dev/null" and a nil; for a deleted one newName "/dev/null"
// and b nil.
//
// If either side looks binary (a NUL byte in its first 8000 bytes, as git
// checks, or invalid UTF-8), the result is git's one-line "Binary files ...
// differ": line hunks of such content would be noise, and could not be shown
// faithfully anyway.
func Unified(oldName, newName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	if isBinary(a) || isBinary(b) {
		return fmt.Sprintf("Binary files %s and %s differ\n", oldName, newName)
	}
	return render(oldName, newName, Hunks(a, b))
}

// render writes hunks in unified diff form. A line's own bytes, CR
// included, follow its marker, so patch writes them back unchanged; a line
// without newline gets the marker that tells patch not to add one.
func render(oldName, newName string, hunks []Hunk) string {
	size := len(oldName) + len(newName) + 10
	for _, h := range hunks {
		size += 32
		for _, l := range h.Lines {
			size += 1 + len(l.Text)
		}
	}
	var sb strings.Builder
	sb.Grow(size)
	sb.WriteString("--- " + oldName + "\n+++ " + newName + "\n")
	for _, h := range hunks {
		sb.WriteString("@@ -" + rangeString(h.OldStart, h.OldLines) + " +" + rangeString(h.NewStart, h.NewLines) + " @@\n")
		for _, l := range h.Lines {
			sb.WriteByte(l.Kind)
			sb.WriteString(l.Text)
			if !strings.HasSuffix(l.Text, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return sb.String()
}

// isBinary reports whether p should be diffed as a whole rather than by line.
func isBinary(p []byte) bool {
	return textfile.IsBinary(p) || !utf8.Valid(p)
}

// Stats counts the lines a change adds and removes; a modified line counts
// as one of each.
type Stats struct{ Added, Removed int }

// Summary counts the lines added and removed from a to b, by the same line
// diff as Unified and Hunks (so for binary content it counts '\n'-separated
// chunks).
func Summary(a, b []byte) Stats {
	var st Stats
	if bytes.Equal(a, b) {
		return st
	}
	s := compute(a, b, defaultLimits)
	for _, d := range s.del {
		if d {
			st.Removed++
		}
	}
	for _, in := range s.ins {
		if in {
			st.Added++
		}
	}
	return st
}

// String gives the compact form used in change lists, "+3 −1", with a true
// minus sign (U+2212), as wide as the plus, rather than a hyphen.
func (s Stats) String() string {
	return fmt.Sprintf("+%d \u2212%d", s.Added, s.Removed)
}
