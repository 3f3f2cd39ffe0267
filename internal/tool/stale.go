package tool

import (
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/workspace"
)

// Bounds of the change a stale-file refusal shows: enough for the small
// changes that are most of them (a formatter, a save, a sub-agent's edit),
// never so much that the refusal crowds out the conversation.
const (
	staleMaxLines    = 80
	staleMaxLineSize = 1000
)

// staleRefusal refuses a change to a file whose content changed since the
// agent read it, and says what it can: who changed it (see
// ChangeLog.Explain), and what changed since the read, as a bounded
// unified diff with line numbers. The read record is then renewed from
// what the refusal showed (the lines the agent saw and that did not
// change, and the lines shown here), so the change can be redone without
// another full read. Without the text that was read (a file too large to
// keep), only a read can tell what changed.
func (c *Call) staleRefusal(loc workspace.Location, name string, rec *ReadRecord, fi fs.FileInfo, data []byte) error {
	who := c.Env.Changes.Explain(loc.Real, fi, c.Session, c.RequestID, time.Now())
	if rec.Content == nil {
		return Refusef("%s changed on disk since you last read it; who changed it: %s. Tether did not keep the text you read (the file is large, or one of many read), so it cannot show what changed: read it again with read_file, then redo the change", name, who)
	}
	hunks := diff.Hunks(rec.Content, data)
	budget := max(c.Budget.OutputChars()/3, 2000)
	shown, cut, view, left := renderStale(hunks, budget)

	lines := mapUnchanged(rec.Lines, hunks)
	for _, n := range shown {
		lines.Add(n, n)
	}
	cutLines := mapUnchanged(rec.Cut, hunks)
	for _, n := range cut {
		cutLines.Add(n, n)
	}
	c.Session.Replace(loc.Real, fi, data, lines, cutLines)

	var b strings.Builder
	fmt.Fprintf(&b, "%s changed on disk since you last read it; who changed it: %s. What changed since your read (%s; a line's number is where it is now, a removed line's where it was):\n",
		name, who, countOf(len(hunks), "changed region"))
	b.WriteString(view)
	if left > 0 {
		fmt.Fprintf(&b, "[%s not shown: read %s with read_file before you rely on them.]\n", countOf(left, "more changed region"), linesOf(hunks[len(hunks)-left:]))
	}
	b.WriteString("Tether now counts the lines shown here, and those you had read that did not change, as read: redo the change if it concerns them, without reading the file again; otherwise read the part you need with read_file.")
	return Refusef("%s", b.String())
}

// renderStale writes hunks for the model, whole lines with their numbers,
// until about maxBytes or staleMaxLines lines. It returns the line
// numbers (as the file is now) of the lines it showed whole and of those
// it cut, the text, and how many hunks it did not show at all.
func renderStale(hunks []diff.Hunk, maxBytes int) (shown, cut []int, view string, left int) {
	var b strings.Builder
	lines := 0
	for i, h := range hunks {
		header := fmt.Sprintf("@@ -%s +%s @@\n", span(h.OldStart, h.OldLines), span(h.NewStart, h.NewLines))
		if i > 0 && (lines+len(h.Lines) > staleMaxLines || b.Len()+len(header) > maxBytes) {
			return shown, cut, b.String(), len(hunks) - i
		}
		b.WriteString(header)
		for _, l := range h.Lines {
			if lines >= staleMaxLines || b.Len() > maxBytes {
				b.WriteString("[… the rest of this region is not shown]\n")
				return shown, cut, b.String(), len(hunks) - i - 1
			}
			text := strings.TrimSuffix(strings.TrimSuffix(l.Text, "\n"), "\r")
			whole := len(text) <= staleMaxLineSize
			if !whole {
				text = CutUTF8(text[:staleMaxLineSize]) + " … [line cut]"
			}
			num := l.NewNum
			if l.Kind == '-' {
				num = l.OldNum
			}
			b.WriteByte(l.Kind)
			b.WriteString(strconv.Itoa(num))
			b.WriteByte('\t')
			b.WriteString(text)
			b.WriteByte('\n')
			lines++
			if l.Kind != '-' {
				if whole {
					shown = append(shown, l.NewNum)
				} else {
					cut = append(cut, l.NewNum)
				}
			}
		}
	}
	return shown, cut, b.String(), 0
}

// span writes a hunk's range as a unified diff header does.
func span(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// linesOf names where hunks lie in the file as it is now: "lines 40-47,
// 90", the first few of many and where the last ends.
func linesOf(hunks []diff.Hunk) string {
	const listed = 5
	var set textfile.LineSet
	for _, h := range hunks {
		set.Add(max(h.NewStart, 1), h.NewStart+h.NewLines-1)
	}
	rs := set.Ranges()
	if len(rs) <= listed {
		return "lines " + textfile.FormatLineRanges(rs)
	}
	return fmt.Sprintf("lines %s and %d more ranges up to line %d", textfile.FormatLineRanges(rs[:listed]), len(rs)-listed, rs[len(rs)-1].End)
}

// mapUnchanged carries a set of lines of the old content to the new one:
// each line that did not change keeps its place in the set, at its new
// number; changed lines drop out.
func mapUnchanged(old textfile.LineSet, hunks []diff.Hunk) textfile.LineSet {
	var out textfile.LineSet
	ranges := old.Ranges()
	// carry adds the old lines in [from, to], unchanged, shifted by delta.
	carry := func(from, to, delta int) {
		for _, r := range ranges {
			if lo, hi := max(r.Start, from), min(r.End, to); lo <= hi {
				out.Add(lo+delta, hi+delta)
			}
		}
	}
	next, delta := 1, 0 // the first old line after the last hunk, and its shift
	for _, h := range hunks {
		first := h.OldStart // the hunk's first old line
		if h.OldLines == 0 {
			first = h.OldStart + 1
		}
		carry(next, first-1, delta)
		for _, l := range h.Lines {
			if l.Kind == ' ' && old.Covers(l.OldNum, l.OldNum) {
				out.Add(l.NewNum, l.NewNum)
			}
		}
		next = first + h.OldLines
		newNext := h.NewStart + h.NewLines
		if h.NewLines == 0 {
			newNext = h.NewStart + 1
		}
		delta = newNext - next
	}
	carry(next, math.MaxInt32, delta)
	return out
}
