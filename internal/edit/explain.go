package edit

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// issue is one kind of difference between a file line and a line of
// old_string. The order is the order notes are given in: the differences a
// model most often makes, and can most easily fix, first.
type issue int

const (
	tabsVsSpaces issue = iota
	indentDepth
	trailingSpace
	innerSpace
	lookAlike
	strayCR
	otherText
	numIssues
)

// finding gathers the lines with one kind of difference and describes the
// first of them.
type finding struct {
	lines  []int
	detail string
}

// explain compares old's lines with the file lines from s (0-based) on and
// says what differs, in notes a model can act on.
func explain(idx lineIndex, oldLines []string, s int, oldEndsWithBreak bool) []string {
	var found [numIssues]finding
	before, after := 0, 0
	n := min(len(oldLines), maxOldLines)
	for i := range n {
		l := s + i
		switch {
		case l < 0:
			before++
			continue
		case l >= idx.count():
			after++
			continue
		}
		for _, d := range compareLine(string(idx.line(l)), oldLines[i], placeOf(i, len(oldLines)), l+1) {
			f := &found[d.kind]
			if f.detail == "" {
				f.detail = d.detail
			}
			f.lines = append(f.lines, l+1)
		}
	}

	var notes []string
	for k, f := range found {
		if len(f.lines) > 0 {
			notes = append(notes, fmt.Sprintf(issueNotes[k], lineList(f.lines), f.detail))
		}
	}
	if before > 0 {
		notes = append(notes, fmt.Sprintf("old_string has %d more line(s) at its start than the file has before line 1.", before))
	}
	if after > 0 {
		notes = append(notes, fmt.Sprintf("old_string has %d more line(s) than the file has after its last line, %d.", after, idx.count()))
	}
	if last := s + n - 1; oldEndsWithBreak && after == 0 && last == idx.count()-1 && !idx.endsWithBreak(last) {
		notes = append(notes, fmt.Sprintf("old_string ends with a line break that the file does not have: nothing follows line %d, the last line.", last+1))
	}
	if len(notes) == 0 {
		notes = append(notes, "these lines match old_string line by line, yet old_string does not occur as one piece: look for invisible characters, or for where old_string starts and ends.")
	}
	return notes
}

var issueNotes = [numIssues]string{
	tabsVsSpaces:  "Tabs versus spaces on line(s) %s: %s. Indent exactly as the file does.",
	indentDepth:   "Indentation differs on line(s) %s: %s. Indent exactly as the file does.",
	trailingSpace: "Trailing whitespace differs on line(s) %s: %s.",
	innerSpace:    "Spacing between words differs on line(s) %s: %s.",
	lookAlike:     "Look-alike characters on line(s) %s: %s. Use the file's exact characters.",
	strayCR:       "Line endings: line(s) %s %s.",
	otherText:     "The text differs on line(s) %s: %s.",
}

type difference struct {
	kind   issue
	detail string
}

// compareLine says how one file line (number n) and one line of old_string
// differ. A line that fits (see fits) does not differ.
func compareLine(file, old string, p place, n int) []difference {
	if fits(file, old, p) {
		return nil
	}
	if strings.ContainsRune(file, '\r') || strings.ContainsRune(old, '\r') {
		nf, no := strings.ReplaceAll(file, "\r", ""), strings.ReplaceAll(old, "\r", "")
		if fits(nf, no, p) || strings.TrimSpace(nf) == strings.TrimSpace(no) {
			where := "of the file contain"
			if strings.ContainsRune(old, '\r') {
				where = "of old_string contain"
			}
			return []difference{{strayCR, where + "s a carriage return (\\r) that is not part of a CRLF line break; leave \\r out of old_string and match the text around it"}}
		}
	}
	fLead, fCore, fTrail := splitSpace(file)
	oLead, oCore, oTrail := splitSpace(old)
	if fCore == oCore {
		// An edge line of old_string may begin or end inside its file line,
		// so less whitespace there is no difference.
		mayStartInside, mayEndInside := p == first || p == only, p == last || p == only
		var ds []difference
		if fLead != oLead && !(mayStartInside && strings.HasSuffix(fLead, oLead)) {
			kind := indentDepth
			if hasTab(fLead) != hasTab(oLead) {
				kind = tabsVsSpaces
			}
			ds = append(ds, difference{kind, fmt.Sprintf("line %d of the file starts with %s, old_string's line with %s", n, describeSpace(fLead), describeSpace(oLead))})
		}
		if fTrail != oTrail && !(mayEndInside && strings.HasPrefix(fTrail, oTrail)) {
			ds = append(ds, difference{trailingSpace, fmt.Sprintf("line %d of the file ends with %s, old_string's line with %s", n, describeSpace(fTrail), describeSpace(oTrail))})
		}
		if len(ds) > 0 {
			return ds
		}
	}
	if squeezeSpace(file) == squeezeSpace(old) || p != middle && strings.Contains(squeezeSpace(file), squeezeSpace(old)) {
		return []difference{{innerSpace, fmt.Sprintf("line %d of the file is %s; old_string has %s", n, quote(file), quote(old))}}
	}
	if nf, no := plainChars(file), plainChars(old); nf != file || no != old {
		if fits(nf, no, p) || strings.TrimSpace(nf) == strings.TrimSpace(no) {
			return []difference{{lookAlike, fmt.Sprintf("line %d of the file has %s, old_string has %s", n, fancyChars(file), fancyChars(old))}}
		}
	}
	return []difference{{otherText, fmt.Sprintf("line %d of the file is %s; old_string has %s", n, quote(file), quote(old))}}
}

// splitSpace splits s into its leading whitespace, the rest, and its
// trailing whitespace.
func splitSpace(s string) (lead, core, trail string) {
	core = strings.TrimLeft(s, " \t")
	lead = s[:len(s)-len(core)]
	trimmed := strings.TrimRight(core, " \t")
	return lead, trimmed, core[len(trimmed):]
}

func hasTab(s string) bool { return strings.ContainsRune(s, '\t') }

// describeSpace names a run of spaces and tabs: "4 spaces", "1 tab and 2 spaces".
func describeSpace(ws string) string {
	tabs := strings.Count(ws, "\t")
	spaces := len(ws) - tabs
	var parts []string
	if tabs > 0 {
		parts = append(parts, plural(tabs, "tab"))
	}
	if spaces > 0 {
		parts = append(parts, plural(spaces, "space"))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " and ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// squeezeSpace trims s and turns every run of spaces and tabs into one space.
func squeezeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// lookAlikes maps characters that read as ASCII to the ASCII they read as.
var lookAlikes = strings.NewReplacer(
	"\u00a0", " ", "\u2007", " ", "\u202f", " ", "\u3000", " ",
	"\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2212", "-",
	"\u2026", "...", "\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "",
)

func plainChars(s string) string { return lookAlikes.Replace(s) }

// fancyChars lists the look-alike characters in s, or says it has none.
func fancyChars(s string) string {
	var found []string
	seen := map[rune]bool{}
	for _, r := range s {
		if r >= 0x80 && !seen[r] && plainChars(string(r)) != string(r) {
			seen[r] = true
			found = append(found, fmt.Sprintf("%q (U+%04X)", r, r))
		}
	}
	if len(found) == 0 {
		return "plain ASCII there"
	}
	return strings.Join(found, ", ")
}

// maxQuoted caps a line quoted in a note.
const maxQuoted = 120

// quote shows a line with its whitespace visible, cut to a readable length.
func quote(s string) string {
	if len(s) > maxQuoted {
		cut := maxQuoted
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// maxListedRanges caps the line ranges a note names.
const maxListedRanges = 8

// lineList renders ascending line numbers as "3-5, 9".
func lineList(lines []int) string {
	var parts []string
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		if len(parts) == maxListedRanges {
			parts = append(parts, "…")
			break
		}
		if i == j {
			parts = append(parts, strconv.Itoa(lines[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", lines[i], lines[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
