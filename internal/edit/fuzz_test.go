package edit

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// occurrences lists where pat occurs in b, overlapping ones included,
// leaving out any that begin or end between the CR and LF of a pair: the
// plain, obviously correct reference the fuzzer checks Apply against.
func occurrences(b []byte, pat string) []int {
	var at []int
	if pat == "" {
		return nil
	}
	for p := 0; p+len(pat) <= len(b); p++ {
		if string(b[p:p+len(pat)]) != pat || refSplitsPair(b, p) || refSplitsPair(b, p+len(pat)) {
			continue
		}
		at = append(at, p)
	}
	return at
}

// refSplitsPair reports whether offset p lies between a CR and its LF.
func refSplitsPair(b []byte, p int) bool {
	return p > 0 && p < len(b) && b[p-1] == '\r' && b[p] == '\n'
}

// hasLoneLF reports whether b has an LF without a CR before it.
func hasLoneLF(b []byte) bool {
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			return true
		}
	}
	return false
}

// hasLoneCR reports whether s has a CR that is not followed by an LF.
func hasLoneCR(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n') {
			return true
		}
	}
	return false
}

// matchAt is the reference matcher: it walks content from s, folding each
// CRLF pair into LF as it goes, and reports where pat ends, or -1.
func matchAt(content []byte, s int, pat string) int {
	q := s
	for k := 0; k < len(pat); k++ {
		switch {
		case q+1 < len(content) && content[q] == '\r' && content[q+1] == '\n':
			if pat[k] != '\n' {
				return -1
			}
			q += 2
		case q < len(content) && content[q] == pat[k]:
			q++
		default:
			return -1
		}
	}
	return q
}

// referenceMatches lists every [s, e) of content that folds to old and
// does not cut a CRLF pair in two, overlapping ones included.
func referenceMatches(content []byte, old string) [][2]int {
	pat := strings.ReplaceAll(old, "\r\n", "\n")
	var ms [][2]int
	for s := 0; s < len(content) && pat != ""; s++ {
		if refSplitsPair(content, s) {
			continue
		}
		if e := matchAt(content, s, pat); e >= 0 && !refSplitsPair(content, e) {
			ms = append(ms, [2]int{s, e})
		}
	}
	return ms
}

// maxReferenceInput keeps the quadratic reference matcher quick.
const maxReferenceInput = 4096

func FuzzApply(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), "b", "B", false)
	f.Add([]byte("one\r\ntwo\r\n"), "one\ntwo", "1\n2\n3", false)
	f.Add([]byte("lf\ncr\r\nlf\n"), "cr\n", "x\ny\n", true)
	f.Add([]byte("aaaa"), "aa", "b", true)
	f.Add([]byte("a\r\nb"), "a\r", "x", false)
	f.Add([]byte("a\r\r\nb\r\n"), "\r\nb", "\n", false)
	f.Add([]byte("x\ty \n"), "x\ty", "", false)
	f.Fuzz(func(t *testing.T, content []byte, old, repl string, all bool) {
		orig := bytes.Clone(content)
		got, err := Apply(content, Edit{Old: old, New: repl, ReplaceAll: all})
		if !bytes.Equal(content, orig) {
			t.Fatal("Apply modified its input")
		}
		if err != nil && got.Content != nil {
			t.Fatal("content returned with an error")
		}
		if len(content) > maxReferenceInput {
			return
		}
		ms := referenceMatches(content, old)
		var nf *NotFoundError
		var amb *AmbiguousError
		switch {
		case errors.Is(err, ErrEmptyOld), errors.Is(err, ErrSame):
		case errors.As(err, &nf):
			if len(ms) > 0 {
				t.Fatalf("not found, yet the reference matches at %v", ms)
			}
			// The spec's own words: neither line-ending form of old occurs.
			forms := []string{old}
			if !hasLoneCR(old) {
				lf := strings.ReplaceAll(old, "\r\n", "\n")
				forms = append(forms, lf, strings.ReplaceAll(lf, "\n", "\r\n"))
			}
			for _, form := range forms {
				if at := occurrences(content, form); len(at) > 0 {
					t.Fatalf("not found, yet %q occurs at %v", form, at)
				}
			}
		case errors.As(err, &amb):
			if all || len(ms) < 2 || (!amb.Capped && amb.Count != len(ms)) {
				t.Fatalf("ambiguous (%+v) with replace_all=%v and %d reference matches", amb, all, len(ms))
			}
		case errors.Is(err, ErrNoChange), err == nil:
			if len(ms) == 0 || (!all && len(ms) != 1) {
				t.Fatalf("applied (err %v) with %d reference matches, replace_all=%v", err, len(ms), all)
			}
			if err == nil {
				checkApplied(t, content, ms, repl, got)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// checkApplied rebuilds the expected output from the reference matches:
// outside the replaced occurrences every byte is as it was, each
// replacement is the new text in LF or CRLF form, and a CRLF-only file
// gains no lone LF.
func checkApplied(t *testing.T, content []byte, ms [][2]int, repl string, got Applied) {
	t.Helper()
	lf := strings.ReplaceAll(repl, "\r\n", "\n")
	forms := []string{lf, strings.ReplaceAll(lf, "\n", "\r\n")}
	out := got.Content
	prev, q, n := 0, 0, 0
	for _, m := range ms {
		if m[0] < prev {
			continue // overlaps the previous replacement
		}
		keep := content[prev:m[0]]
		if !bytes.HasPrefix(out[q:], keep) {
			t.Fatalf("bytes before occurrence %d changed: %q -> %q", n+1, content, out)
		}
		q += len(keep)
		switch {
		case strings.HasPrefix(string(out[q:]), forms[0]):
			q += len(forms[0])
		case strings.HasPrefix(string(out[q:]), forms[1]):
			q += len(forms[1])
		default:
			t.Fatalf("occurrence %d not replaced by %q: %q -> %q", n+1, repl, content, out)
		}
		prev = m[1]
		n++
	}
	if !bytes.Equal(out[q:], content[prev:]) {
		t.Fatalf("bytes after the last occurrence changed: %q -> %q", content, out)
	}
	if n != len(got.Spans) {
		t.Fatalf("%d replacements, %d spans", n, len(got.Spans))
	}
	for _, s := range got.Spans {
		if s.Start < 1 || s.End < s.Start-1 {
			t.Fatalf("bad span %v", s)
		}
	}
	if bytes.Contains(content, []byte("\n")) && !hasLoneLF(content) && hasLoneLF(out) {
		t.Fatalf("CRLF-only %q became %q, with a lone LF", content, out)
	}
}

func FuzzClosest(f *testing.F) {
	f.Add([]byte(goFile), "    if name == \"\" {\n")
	f.Add([]byte(goFile), "12\tfunc main() {\n")
	f.Add([]byte("a\r\nb\rc\n"), "b\r\nc")
	f.Add([]byte("x"), "x\n")
	f.Add([]byte("\n\n\n"), "\n\nq\n")
	f.Add([]byte("\xff\xfe\n\tz\n"), "  z")
	f.Fuzz(func(t *testing.T, content []byte, old string) {
		r, ok := Closest(content, old)
		if !ok {
			return
		}
		lines := indexLines(content).count()
		if r.Start < 1 || r.End < r.Start || r.End > lines {
			t.Fatalf("region %d-%d in a file of %d lines", r.Start, r.End, lines)
		}
		if len(r.Notes) == 0 || r.Excerpt == "" {
			t.Fatalf("region without notes or excerpt: %+v", r)
		}
		if r.Similarity < minSimilarity || r.Similarity > 1 {
			t.Fatalf("similarity %v", r.Similarity)
		}
	})
}
