package edit

import (
	"fmt"
	"strings"
	"testing"
)

// goFile is a small source file used by the Closest tests; its lines are
// numbered from 1 in the comments of the cases below.
const goFile = "package main\n" + // 1
	"\n" + // 2
	"import \"fmt\"\n" + // 3
	"\n" + // 4
	"func greet(name string) {\n" + // 5
	"\tif name == \"\" {\n" + // 6
	"\t\tname = \"world\"\n" + // 7
	"\t}\n" + // 8
	"\tfmt.Println(\"hello, \" + name)  \n" + // 9 (two trailing spaces)
	"}\n" + // 10
	"\n" + // 11
	"func main() {\n" + // 12
	"\tgreet(\"gopher\")\n" + // 13
	"}" // 14, no final newline

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		content    string
		old        string
		start, end int
		exact      bool
		notes      []string // each must appear in some note
	}{
		{
			name:  "spaces instead of tabs",
			old:   "    if name == \"\" {\n        name = \"world\"\n    }\n",
			start: 6, end: 8,
			notes: []string{"Tabs versus spaces on line(s) 6-8", "line 6 of the file starts with 1 tab, old_string's line with 4 spaces"},
		},
		{
			name:  "indentation depth",
			old:   "\t\tif name == \"\" {\n\t\t\tname = \"world\"\n",
			start: 6, end: 7,
			notes: []string{"Indentation differs on line(s) 6-7", "starts with 1 tab, old_string's line with 2 tabs"},
		},
		{
			name:  "missing trailing spaces",
			old:   "\tfmt.Println(\"hello, \" + name)\n}\n",
			start: 9, end: 10,
			notes: []string{"Trailing whitespace differs on line(s) 9", "ends with 2 spaces, old_string's line with none"},
		},
		{
			name:  "read_file gutter left in",
			old:   "12\tfunc main() {\n13\t\tgreet(\"gopher\")\n",
			start: 12, end: 13, exact: true,
			notes: []string{"line-number gutter"},
		},
		{
			name:  "gutter and another difference",
			old:   "8\t}\n9\tfmt.Println(\"hello, \" + name)\n",
			start: 8, end: 9,
			notes: []string{"line-number gutter", "Tabs versus spaces on line(s) 9:"},
		},
		{
			name:  "escaped twice",
			old:   `func main() {\n\tgreet(\"gopher\")`,
			start: 12, end: 13, exact: true,
			notes: []string{`escape sequences such as \n`},
		},
		{
			name:  "final line break the file lacks",
			old:   "\tgreet(\"gopher\")\n}\n",
			start: 13, end: 14, exact: true,
			notes: []string{"a line break that the file does not have: nothing follows line 14"},
		},
		{
			name:  "one-line typo found by its words",
			old:   "func greet(name strng) {",
			start: 5, end: 5,
			notes: []string{`The text differs on line(s) 5: line 5 of the file is "func greet(name string) {"; old_string has "func greet(name strng) {"`},
		},
		{
			name:  "one changed line among matching ones",
			old:   "func main() {\n\tgreet(\"rustacean\")\n}",
			start: 12, end: 14,
			notes: []string{"The text differs on line(s) 13"},
		},
		{
			name:  "curly quotes",
			old:   "\tgreet(\u201cgopher\u201d)",
			start: 13, end: 13,
			notes: []string{"Look-alike characters on line(s) 13", "U+201C"},
		},
		{
			name:  "spacing between words",
			old:   "\tif name  ==  \"\" {\n",
			start: 6, end: 6,
			notes: []string{"Spacing between words differs on line(s) 6"},
		},
		{
			name:    "CRLF file is compared by its lines",
			content: strings.ReplaceAll(goFile, "\n", "\r\n"),
			old:     "    greet(\"gopher\")\r\n",
			start:   13, end: 13,
			notes: []string{"Tabs versus spaces on line(s) 13"},
		},
		{
			name:  "more lines than the file has",
			old:   "\tgreet(\"gopher\")\n}\nfunc extra() {}\n",
			start: 13, end: 14,
			notes: []string{"1 more line(s) than the file has after its last line, 14"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content := tc.content
			if content == "" {
				content = goFile
			}
			if _, err := Apply([]byte(content), Edit{Old: tc.old, New: "x"}); !isNotFound(err) {
				t.Fatalf("the case is wrong: Apply says %v", err)
			}
			r, ok := Closest([]byte(content), tc.old)
			if !ok {
				t.Fatal("no region found")
			}
			if r.Start != tc.start || r.End != tc.end || r.Exact != tc.exact {
				t.Errorf("region %d-%d exact=%v, want %d-%d exact=%v", r.Start, r.End, r.Exact, tc.start, tc.end, tc.exact)
			}
			all := strings.Join(r.Notes, "\n")
			for _, want := range tc.notes {
				if !strings.Contains(all, want) {
					t.Errorf("notes lack %q:\n%s", want, all)
				}
			}
			if want := fmt.Sprintf("%d\t", tc.start); !strings.Contains(r.Excerpt, want) {
				t.Errorf("excerpt lacks line %d:\n%s", tc.start, r.Excerpt)
			}
		})
	}
}

func TestClosestExcerptUsesReadFileGutter(t *testing.T) {
	r, ok := Closest([]byte(goFile), "func main() {\n  greet(\"gopher\")\n}")
	if !ok {
		t.Fatal("no region")
	}
	want := "10\t}\n11\t\n12\tfunc main() {\n13\t\tgreet(\"gopher\")\n14\t}\n"
	if r.Excerpt != want {
		t.Fatalf("excerpt:\n%q\nwant\n%q", r.Excerpt, want)
	}
}

func TestClosestNothingSimilar(t *testing.T) {
	for _, old := range []string{"zzz qqq vvv", "   \n\t\n", "]]]"} {
		if r, ok := Closest([]byte(goFile), old); ok {
			t.Errorf("Closest(%q) = %+v, want nothing", old, r)
		}
	}
	if _, ok := Closest(nil, "x"); ok {
		t.Error("an empty file has no region")
	}
}

func TestClosestExcerptIsBounded(t *testing.T) {
	var file, old strings.Builder
	for i := range 500 {
		fmt.Fprintf(&file, "\tline %d\n", i)
		fmt.Fprintf(&old, "    line %d\n", i)
	}
	r, ok := Closest([]byte(file.String()), old.String())
	if !ok || r.Start != 1 || r.End != 500 {
		t.Fatalf("region %+v ok=%v", r.Start, ok)
	}
	if n := strings.Count(r.Excerpt, "\n"); n > maxExcerptLines+1 || !strings.Contains(r.Excerpt, "more lines; read them with read_file offset=") {
		t.Fatalf("excerpt of %d lines:\n%s", n, r.Excerpt)
	}
	// Only the first maxOldLines lines are compared, so the work is bounded.
	if !strings.Contains(strings.Join(r.Notes, "\n"), "Tabs versus spaces on line(s) 1-400:") {
		t.Fatalf("notes: %v", r.Notes)
	}
}
