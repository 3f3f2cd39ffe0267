package edit

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/textfile"
)

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		edit    Edit
		want    string
		spans   [][2]int
	}{
		{"unique match", "a\nb\nc\n", Edit{Old: "b", New: "B"}, "a\nB\nc\n", [][2]int{{2, 2}}},
		{"multi-line new text", "a\nb\nc\n", Edit{Old: "b\n", New: "x\ny\n"}, "a\nx\ny\nc\n", [][2]int{{2, 3}}},
		{"deletion", "a\nb\nc\n", Edit{Old: "b\n", New: ""}, "a\nc\n", [][2]int{{2, 1}}},
		{"CRLF file, LF old and new", "one\r\ntwo\r\nthree\r\n", Edit{Old: "one\ntwo\n", New: "1\n2\n2.5\n"}, "1\r\n2\r\n2.5\r\nthree\r\n", [][2]int{{1, 3}}},
		{"CRLF file, CRLF old", "one\r\ntwo\r\n", Edit{Old: "one\r\ntwo", New: "x\ny"}, "x\r\ny\r\n", [][2]int{{1, 2}}},
		{"LF file, CRLF old and new", "one\ntwo\n", Edit{Old: "one\r\ntwo", New: "x\r\ny"}, "x\ny\n", [][2]int{{1, 2}}},
		{"CRLF file, one-line match gets the line's ending", "a\r\nb\r\n", Edit{Old: "b", New: "b1\nb2"}, "a\r\nb1\r\nb2\r\n", [][2]int{{2, 3}}},
		{"mixed file: CRLF region stays CRLF", "lf1\nlf2\ncr1\r\ncr2\r\n", Edit{Old: "cr1\ncr2\n", New: "x\ny\n"}, "lf1\nlf2\nx\r\ny\r\n", [][2]int{{3, 4}}},
		{"mixed file: LF region stays LF", "lf1\nlf2\ncr1\r\ncr2\r\n", Edit{Old: "lf1\n", New: "a\nb\n"}, "a\nb\nlf2\ncr1\r\ncr2\r\n", [][2]int{{1, 2}}},
		{"mixed file: one-line match takes its own line's ending", "lf\ncr\r\n", Edit{Old: "cr", New: "c\nr"}, "lf\nc\r\nr\r\n", [][2]int{{2, 3}}},
		{"match across the ending of a CRLF pair takes the whole pair", "a\r\nb", Edit{Old: "\nb", New: "\nB"}, "a\r\nB", [][2]int{{1, 2}}},
		{"a line break matches a whole CRLF pair", "a\r\nb", Edit{Old: "\n", New: "x"}, "axb", [][2]int{{1, 1}}},
		{"replace all", "x = 1\nx = 2\ny = x\n", Edit{Old: "x", New: "z", ReplaceAll: true}, "z = 1\nz = 2\ny = z\n", [][2]int{{1, 1}, {2, 2}, {3, 3}}},
		{"replace all with CRLF and line shifts", "a\r\nk\r\nk\r\n", Edit{Old: "k\n", New: "k1\nk2\n", ReplaceAll: true}, "a\r\nk1\r\nk2\r\nk1\r\nk2\r\n", [][2]int{{2, 3}, {4, 5}}},
		{"no final newline", "a\nlast", Edit{Old: "last", New: "end"}, "a\nend", [][2]int{{2, 2}}},
		{"unicode", "héllo wörld\n", Edit{Old: "wörld", New: "мир"}, "héllo мир\n", [][2]int{{1, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.content
			got, err := Apply([]byte(tc.content), tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Content) != tc.want {
				t.Errorf("content = %q, want %q", got.Content, tc.want)
			}
			var lines [][2]int
			for _, s := range got.Spans {
				lines = append(lines, [2]int{s.Start, s.End})
				if at := textfile.ToLF(string(got.Content[s.Offset:])); !strings.HasPrefix(at, textfile.ToLF(tc.edit.New)) {
					t.Errorf("span %v: the new text is not at its offset: %q", s, at)
				}
			}
			if !reflect.DeepEqual(lines, tc.spans) {
				t.Errorf("spans = %v, want %v", lines, tc.spans)
			}
			if tc.content != before {
				t.Error("input was modified")
			}
		})
	}
}

func TestApplyRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		edit    Edit
		check   func(error) bool
	}{
		{"empty old", "a", Edit{Old: "", New: "x"}, func(err error) bool { return errors.Is(err, ErrEmptyOld) }},
		{"old equals new", "a", Edit{Old: "a", New: "a"}, func(err error) bool { return errors.Is(err, ErrSame) }},
		{"only line endings differ", "a\nb\n", Edit{Old: "a\n", New: "a\r\n"}, func(err error) bool { return errors.Is(err, ErrNoChange) }},
		{"not found", "a\nb\n", Edit{Old: "c", New: "x"}, isNotFound},
		{"never a fuzzy match", "\tfoo()\n", Edit{Old: "    foo()", New: "bar()"}, isNotFound},
		{"never splits a CRLF pair at the end", "a\r\nb", Edit{Old: "a\r", New: "x"}, isNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply([]byte(tc.content), tc.edit)
			if !tc.check(err) {
				t.Fatalf("err = %v", err)
			}
			if err != nil && got.Content != nil {
				t.Fatal("content returned with an error")
			}
		})
	}
}

func isNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

func TestApplyAmbiguous(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		old     string
		count   int
		lines   []int
	}{
		{"two lines", "x\ny\nx\n", "x", 2, []int{1, 3}},
		{"same line twice", "x x\n", "x", 2, []int{1}},
		{"overlapping", "aaa", "aa", 2, []int{1}},
		{"CRLF file", "k\r\nk\r\n", "k\n", 2, []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply([]byte(tc.content), Edit{Old: tc.old, New: "z"})
			var amb *AmbiguousError
			if !errors.As(err, &amb) {
				t.Fatalf("err = %v, want ambiguous", err)
			}
			if amb.Count != tc.count || !reflect.DeepEqual(amb.Lines, tc.lines) || amb.Capped {
				t.Fatalf("got %+v, want count %d lines %v", amb, tc.count, tc.lines)
			}
		})
	}
}

func TestApplyAmbiguousIsBounded(t *testing.T) {
	content := make([]byte, 1<<20)
	for i := range content {
		content[i] = 'a'
	}
	_, err := Apply(content, Edit{Old: "a", New: "b"})
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !amb.Capped || amb.Count != maxListed {
		t.Fatalf("err = %v", err)
	}
}
