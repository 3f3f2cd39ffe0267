package search

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Glob is a file pattern, matched against paths relative to the folder
// being searched, with .gitignore's rules of thumb:
//
//   - a pattern without a slash matches a file name at any depth:
//     "*.go" finds "a/b/c.go";
//   - a pattern with a slash matches the whole relative path: "cmd/*.go"
//     only files directly in cmd, "cmd/**/*.go" at any depth below it, and a
//     leading slash just anchors ("/main.go" is the top-level file only);
//   - "*" and "?" never cross a slash, "**" spans any number of folders,
//     "[abc]" / "[!abc]" are character classes, "{a,b}" alternatives, and
//     a backslash makes the next character literal;
//   - a trailing slash names a folder: "docs/" takes every file under any
//     folder called docs;
//   - a leading "!" inverts the pattern: files it matches, and files under
//     folders it matches, are left out.
//
// Matching happens in Tether, on ripgrep's ignore-aware file list. Handing
// the pattern to ripgrep as an including --glob would be simpler, but
// ripgrep lets such a glob override .gitignore: "*.log" would list ignored
// logs and "**" the insides of ignored folders such as node_modules. The
// pattern is only passed on to ripgrep where that cannot happen (see
// rgArgs).
type Glob struct {
	pattern  string
	negated  bool
	dirOnly  bool // the pattern ended in a slash
	anchored bool // the pattern has a slash: match the whole path
	body     string
	re       *regexp.Regexp
}

// CompileGlob parses a pattern; the error says what is wrong with it.
func CompileGlob(pattern string) (*Glob, error) {
	g := &Glob{pattern: pattern}
	p := pattern
	if strings.HasPrefix(p, "!") {
		g.negated, p = true, p[1:]
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if strings.HasSuffix(p, "/") {
		g.dirOnly, p = true, strings.TrimRight(p, "/")
	}
	if strings.HasPrefix(p, "/") {
		g.anchored, p = true, strings.TrimLeft(p, "/")
	}
	if strings.Contains(p, "/") {
		g.anchored = true
	}
	if p == "" {
		return nil, fmt.Errorf("glob %q names no file; try a pattern such as *.go or src/**/*.ts", pattern)
	}
	expr, err := globRegexp(p)
	if err != nil {
		return nil, fmt.Errorf("glob %q: %v", pattern, err)
	}
	re, err := regexp.Compile(`(?s)^` + expr + `$`)
	if err != nil {
		return nil, fmt.Errorf("glob %q: %v", pattern, err)
	}
	g.body, g.re = p, re
	return g, nil
}

// String is the pattern as given.
func (g *Glob) String() string { return g.pattern }

// Allows reports whether a file at rel (slash-separated, relative to the
// searched folder) passes the pattern. A nil Glob allows everything.
func (g *Glob) Allows(rel string) bool {
	if g == nil {
		return true
	}
	hit := (!g.dirOnly && g.matchesFile(rel)) || ((g.dirOnly || g.negated) && g.matchesParent(rel))
	return hit != g.negated
}

func (g *Glob) matchesFile(rel string) bool {
	if !g.anchored {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	return g.re.MatchString(rel)
}

// matchesParent reports whether the pattern names a folder rel lies in.
func (g *Glob) matchesParent(rel string) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		dir := rel[:i]
		if !g.anchored {
			dir = dir[strings.LastIndexByte(dir, '/')+1:]
		}
		if g.re.MatchString(dir) {
			return true
		}
	}
	return false
}

// typeGlob returns a file-name pattern every allowed file's name must
// match, when there is one ripgrep is sure to read as Tether does; ""
// otherwise. Ripgrep applies such a pattern (as a file type) after the
// ignore rules, so passing it on narrows the search without letting
// ignored files in.
func (g *Glob) typeGlob() string {
	if g == nil || g.negated || g.dirOnly {
		return ""
	}
	name := g.body[strings.LastIndexByte(g.body, '/')+1:]
	if !simpleName(name) || name == "*" || braceSpansSlash(g.body) {
		return ""
	}
	return name
}

// byRg reports whether ripgrep alone decides which files the pattern
// allows: a name pattern passed whole as the file type (typeGlob), which
// ripgrep reads as Tether does, so matching again would only repeat it.
func (g *Glob) byRg() bool {
	return g == nil || (!g.anchored && g.typeGlob() == g.body)
}

// literalDir returns the folder, relative to the searched one, that every
// allowed file lies under, as far as the pattern spells it out literally:
// "cmd/tether/*.go" gives "cmd/tether". Searching there instead of the
// whole tree is faster, and has one deliberate effect: like a folder named
// as the search root, a folder spelled out this way is searched even when
// .gitignore ignores it ("node_modules/react/*.json" works), while
// "**/node_modules/**" still finds nothing there.
func (g *Glob) literalDir() string {
	if g == nil || g.negated || !g.anchored || braceSpansSlash(g.body) {
		return ""
	}
	segs := strings.Split(g.body, "/")
	if !g.dirOnly {
		segs = segs[:len(segs)-1]
	}
	n := 0
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, `*?[{\`) {
			break
		}
		n++
	}
	return strings.Join(segs[:n], "/")
}

// rgArgs is what ripgrep is told about the pattern: an including name
// pattern as a file type (which, unlike --glob, cannot override the ignore
// rules), an excluding name pattern as a negated --glob (excluding can only
// leave files out). Anything else is matched in Tether alone.
func (g *Glob) rgArgs() []string {
	if g == nil {
		return nil
	}
	if name := g.typeGlob(); name != "" {
		return []string{"--type-add", "tetherglob:" + name, "--type", "tetherglob"}
	}
	if g.negated && !g.anchored && simpleName(g.body) {
		return []string{"--glob", "!" + g.body}
	}
	return nil
}

// simpleName reports whether a one-segment pattern uses only syntax that
// ripgrep's glob engine and Tether's read the same way: literals, * and ?
// and one level of {a,b} without empty alternatives. ':' is out because
// ripgrep's --type-add reads it as a separator.
func simpleName(name string) bool {
	if name == "" || strings.ContainsAny(name, `[]\:/!`) || strings.Contains(name, "**") {
		return false
	}
	for _, bad := range []string{"{,", ",}", ",,", "{}"} {
		if strings.Contains(name, bad) {
			return false
		}
	}
	return true
}

// braceSpansSlash reports a {…} group with a slash inside, which makes
// splitting the pattern into folders and a name unreliable.
func braceSpansSlash(p string) bool {
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case '/':
			if depth > 0 {
				return true
			}
		}
	}
	return false
}

// globRegexp translates a pattern (without its !, leading or trailing
// slashes) into a regular expression body.
func globRegexp(p string) (string, error) {
	var b strings.Builder
	inBrace := false
	for i := 0; i < len(p); {
		c := p[i]
		switch c {
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			atSegStart := i == 0 || p[i-1] == '/'
			switch {
			case j-i == 1 || !atSegStart:
				b.WriteString(`[^/]*`)
			case j == len(p):
				b.WriteString(`.*`)
			case p[j] == '/':
				b.WriteString(`(?:.*/)?`)
				j++
			default: // "**x": an ordinary star
				b.WriteString(`[^/]*`)
			}
			i = j
			continue
		case '?':
			b.WriteString(`[^/]`)
		case '[':
			class, n, err := globClass(p[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(class)
			i += n
			continue
		case '{':
			if inBrace {
				return "", errors.New("nested { } are not supported; list the alternatives in one group, e.g. *.{ts,tsx,js}")
			}
			inBrace = true
			b.WriteString(`(?:`)
		case '}':
			if inBrace {
				inBrace = false
				b.WriteString(`)`)
			} else {
				b.WriteString(`\}`)
			}
		case ',':
			if inBrace {
				b.WriteString(`|`)
			} else {
				b.WriteString(`,`)
			}
		case '\\':
			if i+1 == len(p) {
				return "", errors.New("it ends in a lone backslash")
			}
			r, n := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += 1 + n
			continue
		default:
			r, n := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n
			continue
		}
		i++
	}
	if inBrace {
		return "", errors.New("a { is never closed; close it with }, or write \\{ for a literal brace")
	}
	return b.String(), nil
}

// globClass translates a [...] class at the start of p and returns how
// many bytes it took. A class never matches a slash.
func globClass(p string) (string, int, error) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate, i = true, i+1
	}
	var body strings.Builder
	first := true
	for ; i < len(p); first = false {
		c := p[i]
		if c == ']' && !first {
			if body.Len() == 0 {
				return "", 0, errors.New("an empty [] class matches nothing")
			}
			if negate {
				return `[^/` + body.String() + `]`, i + 1, nil
			}
			return `[` + body.String() + `]`, i + 1, nil
		}
		if c == '\\' && i+1 < len(p) {
			i++ // the escaped character is taken as it is, below
		} else if c == '-' && !first && i+1 < len(p) && p[i+1] != ']' {
			body.WriteByte('-')
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(p[i:])
		if r == '/' {
			i += n
			continue
		}
		if strings.ContainsRune(`\]^[-`, r) {
			body.WriteByte('\\')
		}
		body.WriteRune(r)
		i += n
	}
	return "", 0, errors.New("a [ is never closed; close the class with ], or write \\[ for a literal bracket")
}
