package edit

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/tether-dev/tether/internal/textfile"
)

// Region is the part of a file most like an old string that does not occur
// in it, with what differs.
type Region struct {
	// Start and End are the 1-based lines (inclusive) that line up with
	// old_string.
	Start, End int
	// Similarity is how alike the lines and old_string are, from 0 to 1.
	Similarity float64
	// Exact is set when old_string matches these lines exactly once the
	// repair its note describes is made.
	Exact bool
	// Notes say what differs, most telling first, naming file lines.
	Notes []string
	// Excerpt shows the lines with a little context in read_file's gutter
	// ("N<TAB>line").
	Excerpt string
}

// Bounds on the search, so a miss costs a few linear passes over the file
// and a fixed amount of scoring, however large the file or old string.
const (
	// maxOldLines is how many lines of old_string anchor and score a window.
	maxOldLines = 400
	// maxHits is how often a line or token may occur and still anchor: one
	// seen more often says little about where old_string belongs.
	maxHits = 256
	// maxWindows is how many candidate windows are scored per anchor kind.
	maxWindows = 16
	// maxTokens is how many words of old_string are searched for when no
	// whole line of it is in the file.
	maxTokens = 8
	// minTokenLen keeps short words, which are everywhere, out of the search.
	minTokenLen = 3
	// minSimilarity is the least similarity worth showing; below it the
	// region would mislead more than help.
	minSimilarity = 0.3
	// goodEnough ends the search after line anchors: a window this close
	// is what the model meant.
	goodEnough = 0.8
)

// Closest finds the region of content most like old, which the caller has
// established does not occur in it, and explains the difference. It reports
// false when nothing in content resembles old. content has no byte-order mark.
func Closest(content []byte, old string) (Region, bool) {
	idx := indexLines(content)
	if idx.count() == 0 || strings.TrimSpace(old) == "" {
		return Region{}, false
	}
	pat, repairs, exact := repair(idx, content, textfile.ToLF(old))
	if exact != nil {
		return *exact, true
	}

	oldLines := strings.Split(strings.TrimSuffix(pat, "\n"), "\n")
	sc := newScorer()
	best, bestScore := 0, -1.0
	consider := func(starts []int) {
		for _, s := range starts {
			if s+len(oldLines) <= 0 || s >= idx.count() {
				continue
			}
			if score := windowScore(sc, idx, oldLines, s); score > bestScore {
				best, bestScore = s, score
			}
		}
	}
	consider(lineAnchors(idx, oldLines))
	if bestScore < goodEnough {
		consider(tokenAnchors(idx, oldLines))
	}
	if bestScore < minSimilarity {
		return Region{}, false
	}
	start, end := max(best, 0)+1, min(best+len(oldLines), idx.count())
	return Region{
		Start:      start,
		End:        end,
		Similarity: bestScore,
		Notes:      append(repairs, explain(idx, oldLines, best, strings.HasSuffix(pat, "\n"))...),
		Excerpt:    excerpt(idx, start, end),
	}, true
}

// repair undoes the known ways of garbling copied text. If a repaired form
// is in the file, that is the whole story and exact describes it;
// otherwise the search goes on with the repaired text, and notes say what
// was repaired.
func repair(idx lineIndex, content []byte, pat string) (repaired string, notes []string, exact *Region) {
	for _, m := range misquotes {
		fixed, ok := m.repair(pat)
		if !ok || fixed == "" {
			continue
		}
		if s, e, ok := find(content, fixed).next(false); ok {
			r := exactRegion(idx, s, e, m.note)
			return "", nil, &r
		}
		pat, notes = fixed, append(notes, m.note)
	}
	// A final line break the file does not have: a frequent miss when
	// editing the last line.
	if trimmed, ok := strings.CutSuffix(pat, "\n"); ok && trimmed != "" {
		if s, ok := suffixAt(content, trimmed); ok {
			r := exactRegion(idx, s, len(content), fmt.Sprintf(
				"old_string ends with a line break that the file does not have: nothing follows line %d, the last line. Drop the final line break from old_string (and from new_string).", idx.count()))
			if len(notes) > 0 {
				r.Notes[0] = strings.Join(notes, " ") + " Then: " + r.Notes[0]
			}
			return "", nil, &r
		}
	}
	return pat, notes, nil
}

// suffixAt reports whether content ends with pat (line breaks matching
// either ending) and where that occurrence starts. Only the tail of the
// file is looked at.
func suffixAt(content []byte, pat string) (int, bool) {
	start := max(0, len(content)-2*len(pat)-2)
	if splitsPair(content, start) {
		start--
	}
	tail := fold(content[start:])
	if !bytes.HasSuffix(tail.text, []byte(pat)) {
		return 0, false
	}
	s := start + tail.orig(len(tail.text)-len(pat))
	return s, !splitsPair(content, s)
}

// exactRegion describes the occurrence content[s:e].
func exactRegion(idx lineIndex, s, e int, note string) Region {
	start := idx.lineOf(s) + 1
	end := idx.lineOf(e-1) + 1
	return Region{Start: start, End: end, Similarity: 1, Exact: true, Notes: []string{note}, Excerpt: excerpt(idx, start, end)}
}

// windowScore is the mean similarity of old's lines to the file lines from
// s (0-based) on; lines falling outside the file score 0.
func windowScore(sc *scorer, idx lineIndex, oldLines []string, s int) float64 {
	n := min(len(oldLines), maxOldLines)
	total := 0.0
	for i := range n {
		l := s + i
		if l < 0 || l >= idx.count() {
			continue
		}
		total += sc.similarity(string(idx.line(l)), oldLines[i], placeOf(i, len(oldLines)))
	}
	return total / float64(n)
}

// votes counts, for each possible first line of a window, how many anchors
// put old_string there.
type votes map[int]int

// top returns the starts with the most votes, earliest first among equals.
func (v votes) top() []int {
	starts := make([]int, 0, len(v))
	for s := range v {
		starts = append(starts, s)
	}
	sort.Slice(starts, func(i, j int) bool {
		if v[starts[i]] != v[starts[j]] {
			return v[starts[i]] > v[starts[j]]
		}
		return starts[i] < starts[j]
	})
	return starts[:min(len(starts), maxWindows)]
}

// lineAnchors finds the file lines equal to a line of old, ignoring
// leading and trailing whitespace, in one pass over the file. Lines whose
// trimmed length matches no line of old are skipped before any hashing.
func lineAnchors(idx lineIndex, oldLines []string) []int {
	want := map[string][]int{}
	maxLen := 0
	for i, l := range oldLines[:min(len(oldLines), maxOldLines)] {
		if k := strings.TrimSpace(l); k != "" {
			want[k] = append(want[k], i)
			maxLen = max(maxLen, len(k))
		}
	}
	lenOK := make([]bool, maxLen+1)
	for k := range want {
		lenOK[len(k)] = true
	}
	hits := map[string][]int{}
	for l, start := range idx.starts {
		end := len(idx.text)
		if l+1 < len(idx.starts) {
			end = idx.starts[l+1]
		}
		k := bytes.TrimSpace(idx.text[start:end]) // the line break goes too
		if len(k) > maxLen || !lenOK[len(k)] {
			continue
		}
		if _, ok := want[string(k)]; ok && len(hits[string(k)]) <= maxHits {
			hits[string(k)] = append(hits[string(k)], l)
		}
	}
	v := votes{}
	for k, ls := range hits {
		if len(ls) > maxHits {
			continue
		}
		for _, i := range want[k] {
			for _, l := range ls {
				v[l-i]++
			}
		}
	}
	return v.top()
}

// tokenAnchors finds the longest words of old in the file, for an old
// string none of whose lines is in the file as a whole (a one-line edit
// with a typo, say).
func tokenAnchors(idx lineIndex, oldLines []string) []int {
	v := votes{}
	for _, t := range longestTokens(oldLines, maxTokens) {
		var at []int
		for p := 0; len(at) <= maxHits; {
			i := index(idx.text[p:], []byte(t.text))
			if i < 0 {
				break
			}
			at = append(at, p+i)
			p += i + len(t.text)
		}
		if len(at) > maxHits {
			continue
		}
		for _, p := range at {
			l := idx.lineOf(p) - t.line
			v[l]++
			// Two words agreeing on a place is evidence enough; every
			// further word would cost another pass over the file.
			if v[l] >= 2 {
				return v.top()
			}
		}
	}
	return v.top()
}

type token struct {
	text string
	line int // the first line of old_string it appears on
}

// longestTokens returns up to n distinct words of the lines (letters,
// digits, underscores, any non-ASCII), longest first.
func longestTokens(lines []string, n int) []token {
	seen := map[string]bool{}
	var ts []token
	for i, l := range lines[:min(len(lines), maxOldLines)] {
		for _, w := range strings.FieldsFunc(l, notWordRune) {
			if len(w) >= minTokenLen && !seen[w] {
				seen[w] = true
				ts = append(ts, token{w, i})
			}
		}
	}
	sort.SliceStable(ts, func(i, j int) bool {
		if len(ts[i].text) != len(ts[j].text) {
			return len(ts[i].text) > len(ts[j].text)
		}
		return ts[i].text < ts[j].text
	})
	return ts[:min(len(ts), n)]
}

func notWordRune(r rune) bool {
	return !(r == '_' || r >= 0x80 || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
}
