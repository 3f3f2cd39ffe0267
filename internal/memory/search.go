package memory

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Search limits.
const (
	// MaxHits is how many memories one search returns.
	MaxHits = 10
	// MaxExcerptLines is how many lines of a memory's text a hit shows.
	MaxExcerptLines = 3
	// maxExcerptWidth caps an excerpt line, in bytes, around the match.
	maxExcerptWidth = 160
)

// Field is where a search matched, best first.
type Field int

const (
	FieldName Field = iota
	FieldKeywords
	FieldDescription
	FieldText
)

func (f Field) String() string {
	return [...]string{"name", "keywords", "description", "text"}[f]
}

// Excerpt is one line of a memory's text, with its 1-based line in the file.
type Excerpt struct {
	Line int
	Text string
}

// Hit is one memory a search found.
type Hit struct {
	*Memory
	// Field is the best place the query matched.
	Field    Field
	Excerpts []Excerpt
}

// Results are a search's hits, best first, and how many memories matched
// in all (more than len(Hits) when the limit cut them).
type Results struct {
	Hits  []Hit
	Total int
}

// Search finds the memories that hold every word of query, without regard
// to case, in their name, description, keywords or text. Name and keyword
// hits come first, then description hits, then text hits; among equals, a
// memory holding the whole query as written before one holding its words
// apart, then the newest. Each hit shows
// up to lines lines of its text that hold the query or its words.
func Search(ms []*Memory, query string, limit, lines int) Results {
	q := strings.ToLower(strings.Join(strings.Fields(query), " "))
	words := strings.Fields(q)
	if len(words) == 0 {
		return Results{}
	}
	type ranked struct {
		hit   Hit
		tier  int
		exact bool
		score int
	}
	var found []ranked
	for _, m := range ms {
		if !mayHoldAll(&m.grams, words) {
			continue
		}
		l := &m.lower
		spaced := spacedName(l.name)
		// The text holding the whole query is the common hit, and it
		// holds every word too.
		body := 0
		if m.grams.mayHold(q) && strings.Contains(l.body, q) {
			body = 2
		} else if !everyWord(words, l.name, spaced, l.keywords, l.desc, l.body) {
			continue
		} else if len(words) > 1 && everyWord(words, l.body) {
			body = 1
		}
		name := max(match(q, words, l.name), match(q, words, spaced))
		kw := match(q, words, l.keywords)
		desc := match(q, words, l.desc)
		r := ranked{hit: Hit{Memory: m}, exact: l.name == q || spaced == q}
		switch {
		case name > 0 || kw > 0:
			r.tier, r.score, r.hit.Field = 0, max(name, kw), FieldName
			if name < kw {
				r.hit.Field = FieldKeywords
			}
		case desc > 0:
			r.tier, r.score, r.hit.Field = 1, desc, FieldDescription
		case body > 0:
			r.tier, r.score, r.hit.Field = 2, body, FieldText
		default: // the words are spread over several fields
			r.tier, r.hit.Field = 3, FieldText
		}
		found = append(found, r)
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		switch {
		case a.tier != b.tier:
			return a.tier < b.tier
		case a.exact != b.exact:
			return a.exact
		case a.score != b.score:
			return a.score > b.score
		}
		ua, ub := a.hit.Updated(), b.hit.Updated()
		if !ua.Equal(ub) {
			return ua.After(ub)
		}
		return a.hit.Name < b.hit.Name
	})
	res := Results{Total: len(found)}
	for i := 0; i < len(found) && i < limit; i++ {
		h := found[i].hit
		h.Excerpts = excerpts(h.Memory, q, words, lines)
		res.Hits = append(res.Hits, h)
	}
	return res
}

// spacedName turns a slug's separators into spaces, so "build cache"
// finds build-cache.
func spacedName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' {
			return ' '
		}
		return r
	}, name)
}

// mayHoldAll reports whether every word may occur in a memory.
func mayHoldAll(g *grams, words []string) bool {
	for _, w := range words {
		if !g.mayHold(w) {
			return false
		}
	}
	return true
}

// everyWord reports whether each word occurs in one of the fields.
func everyWord(words []string, fields ...string) bool {
	for _, w := range words {
		ok := false
		for _, f := range fields {
			if strings.Contains(f, w) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// match rates how a field holds the query: 2 the whole query, 1 all its
// words apart, 0 not all of them.
func match(q string, words []string, field string) int {
	switch {
	case field == "":
		return 0
	case strings.Contains(field, q):
		return 2
	case len(words) > 1 && everyWord(words, field):
		return 1
	}
	return 0
}

// excerpts picks up to n lines of m's text: those holding the whole query
// first, then those holding any of its words, shown in file order.
func excerpts(m *Memory, q string, words []string, n int) []Excerpt {
	if n <= 0 {
		return nil
	}
	type line struct {
		no   int
		text string
		low  string
	}
	var all []line
	for i, text := range strings.Split(strings.TrimRight(m.Body, "\n"), "\n") {
		text = strings.TrimRight(text, "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		all = append(all, line{m.BodyLine + i, text, strings.ToLower(text)})
	}
	picked := map[int]bool{}
	var out []Excerpt
	take := func(ok func(low string) bool) {
		for _, l := range all {
			if len(out) == n {
				return
			}
			if !picked[l.no] && ok(l.low) {
				picked[l.no] = true
				out = append(out, Excerpt{Line: l.no, Text: cutAround(l.text, l.low, q, words)})
			}
		}
	}
	take(func(low string) bool { return strings.Contains(low, q) })
	take(func(low string) bool {
		for _, w := range words {
			if strings.Contains(low, w) {
				return true
			}
		}
		return false
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// cutAround shortens a long line to a window around its first match.
func cutAround(text, low, q string, words []string) string {
	if len(text) <= maxExcerptWidth {
		return text
	}
	at := strings.Index(low, q)
	for _, w := range words {
		if at >= 0 {
			break
		}
		at = strings.Index(low, w)
	}
	if len(low) != len(text) || at < 0 {
		at = 0 // lower-casing changed the length: offsets do not carry over
	}
	start := max(0, at-maxExcerptWidth/4)
	end := min(len(text), start+maxExcerptWidth)
	for start < end && !utf8.RuneStart(text[start]) {
		start++
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	out := text[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

// Similar returns up to n of ms whose names are most like name, or whose
// name, keywords or description share its words, best first: the
// memories a new one may duplicate.
func Similar(ms []*Memory, name string, n int) []*Memory {
	tokens := nameTokens(name)
	type scored struct {
		m     *Memory
		score float64
	}
	var out []scored
	for _, m := range ms {
		if m.Name == name {
			continue
		}
		score := nameLikeness(name, m.Name)
		if len(tokens) > 0 {
			have := map[string]bool{}
			for _, t := range nameTokens(m.Name) {
				have[t] = true
			}
			for _, f := range []string{m.lower.keywords, m.lower.desc} {
				for _, t := range strings.FieldsFunc(f, notWordRune) {
					have[t] = true
				}
			}
			shared := 0
			for _, t := range tokens {
				if have[t] {
					shared++
				}
			}
			score = max(score, float64(shared)/float64(len(tokens)))
		}
		if score >= similarEnough {
			out = append(out, scored{m, score})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].m.Name < out[j].m.Name
	})
	var ms2 []*Memory
	for i := 0; i < len(out) && i < n; i++ {
		ms2 = append(ms2, out[i].m)
	}
	return ms2
}

// similarEnough is the likeness from which a memory is worth mentioning:
// half its letters alike, or half the new name's words shared.
const similarEnough = 0.5

func notWordRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 0x80)
}

// nameTokens are the words of a slug worth comparing: those of three or
// more letters (short ones like "a", "of", "go" match too much).
func nameTokens(name string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(strings.ToLower(name), notWordRune) {
		if len(t) >= 3 {
			out = append(out, t)
		}
	}
	return out
}

// nameLikeness is 1 minus the edit distance between two names over the
// longer one's length.
func nameLikeness(a, b string) float64 {
	if a == b {
		return 1
	}
	longest := max(len(a), len(b))
	return 1 - float64(levenshtein(a, b))/float64(longest)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
