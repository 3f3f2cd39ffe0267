package edit

import "strings"

// A misquote is a known way a model garbles text it copied, and the repair
// that undoes it. When the repaired text is in the file, the miss is fully
// explained and the model can be told exactly what to change.
type misquote struct {
	repair func(old string) (string, bool)
	note   string
}

var misquotes = []misquote{
	{stripGutter, "old_string still carries read_file's line-number gutter (the line number and tab at the start of each line). The gutter is not part of the file: remove it from every line of old_string (and new_string)."},
	{unescape, `old_string contains escape sequences such as \n or \t written out as two characters, where the file has a real line break or tab: the text was escaped twice. Send real line breaks and tabs.`},
}

// stripGutter removes read_file's "N<TAB>" prefix from every line, when every
// non-blank line has one.
func stripGutter(old string) (string, bool) {
	lines := strings.Split(old, "\n")
	seen := false
	for i, l := range lines {
		rest, ok := cutGutter(l)
		if !ok {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return "", false
		}
		lines[i], seen = rest, true
	}
	return strings.Join(lines, "\n"), seen
}

// cutGutter cuts "  12\t" off the start of l.
func cutGutter(l string) (string, bool) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	digits := i
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i == digits || i >= len(l) || l[i] != '\t' {
		return "", false
	}
	return l[i+1:], true
}

var unescaper = strings.NewReplacer(`\r\n`, "\n", `\n`, "\n", `\t`, "\t", `\"`, `"`, `\\`, `\`)

// unescape undoes one level of string escaping, for text with no real line
// break that spells them out instead.
func unescape(old string) (string, bool) {
	if strings.Contains(old, "\n") || !strings.Contains(old, `\`) {
		return "", false
	}
	u := unescaper.Replace(old)
	return u, u != old
}
