package cmdline

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// staticWord returns a word's value after quote removal, when the word has
// no expansion of any kind: no parameter, no substitution, no arithmetic.
// Globs, braces and a leading tilde are kept as literal text here; a
// caller to whom they matter asks expands as well.
func staticWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeBare(p.Value))
		case *syntax.SglQuoted:
			if !p.Dollar {
				b.WriteString(p.Value)
				continue
			}
			// $'…' holds C escapes; the expand package decodes them the
			// way bash does. It needs no environment for that.
			v, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
			if err != nil {
				return "", false
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescapeBare removes the backslashes of an unquoted literal: each quotes
// the character after it, and a backslash-newline joins lines.
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that quote inside double quotes:
// only before $, `, ", \ and newline; elsewhere a backslash is itself.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// expands reports why bash would turn a static word into something other
// than its text: an unquoted glob (*, ?, [), a brace expansion ({a,b},
// {1..3}), or a tilde (~ at the start, or after = or : as bash does for
// words that look like assignments). Empty means it would not.
func expands(w *syntax.Word) string {
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			if _, glob := part.(*syntax.ExtGlob); glob {
				return "an extended glob"
			}
			continue
		}
		v := lit.Value
		if i == 0 && strings.HasPrefix(v, "~") {
			return "a ~ (home folder) expansion"
		}
		for j := 0; j < len(v); j++ {
			switch v[j] {
			case '\\':
				j++
			case '*', '?', '[':
				return "an unquoted glob (" + string(v[j]) + ")"
			case '~':
				if j > 0 && (v[j-1] == '=' || v[j-1] == ':') {
					return "a ~ (home folder) expansion"
				}
			}
		}
	}
	// SplitBraces works on a copy: the tree must keep the text as written.
	copied := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	syntax.SplitBraces(copied)
	for _, part := range copied.Parts {
		if b, ok := part.(*syntax.BraceExp); ok && (b.Sequence || len(b.Elems) > 1) {
			return "a brace expansion"
		}
	}
	return ""
}

// source returns the text of a node as written in the command line.
func source(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return ""
	}
	return src[start:end]
}
