package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// project is a non-git folder with ignore rules, hidden files and a .git
// folder, the cases every walk must get right.
func project(t *testing.T) string {
	return tree(t, map[string]string{
		".gitignore":        "node_modules/\n*.log\n/build\n",
		"main.go":           "package main // needle\n",
		"cmd/tool/tool.go":  "package tool // needle\n",
		"cmd/tool/notes.md": "needle\n",
		".github/ci.yml":    "needle: true\n",
		".git/config":       "needle\n",
		".git/HEAD":         "ref: refs/heads/main\n",
		"node_modules/x.go": "needle\n",
		"debug.log":         "needle\n",
		"build/out.go":      "needle\n",
		"sub/build/keep.go": "needle\n",
	})
}

func files(t *testing.T, dir, root, pattern string) []string {
	t.Helper()
	var g *Glob
	if pattern != "" {
		var err error
		if g, err = CompileGlob(pattern); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Files(context.Background(), FilesQuery{Rg: needRg(t), Dir: dir, Root: root, Glob: g, MaxPaths: 1000, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != Complete {
		t.Fatalf("stopped %v", res.Stop)
	}
	return res.Paths
}

func TestFilesHonoursIgnoreRulesWithoutGit(t *testing.T) {
	dir := project(t)
	for _, tc := range []struct {
		root, pattern string
		want          []string
	}{
		{"", "", []string{".github/ci.yml", ".gitignore", "cmd/tool/notes.md", "cmd/tool/tool.go", "main.go", "sub/build/keep.go"}},
		// An including pattern must not bring ignored files back, as a
		// ripgrep --glob would.
		{"", "*.go", []string{"cmd/tool/tool.go", "main.go", "sub/build/keep.go"}},
		{"", "*.log", nil},
		{"", "**", []string{".github/ci.yml", ".gitignore", "cmd/tool/notes.md", "cmd/tool/tool.go", "main.go", "sub/build/keep.go"}},
		{"", "**/config", nil},
		{"", "cmd/**/*.go", []string{"cmd/tool/tool.go"}},
		{"", "cmd/*.go", nil},
		{"", "!*.go", []string{".github/ci.yml", ".gitignore", "cmd/tool/notes.md"}},
		{"", "!cmd/", []string{".github/ci.yml", ".gitignore", "main.go", "sub/build/keep.go"}},
		// Relative to the searched folder.
		{"cmd", "tool/*.go", []string{"cmd/tool/tool.go"}},
		{"cmd", "*.md", []string{"cmd/tool/notes.md"}},
		// Naming an ignored folder, as the root or spelled out at the
		// start of a pattern, searches it: that is asking for it.
		{"node_modules", "", []string{"node_modules/x.go"}},
		{"", "node_modules/*.go", []string{"node_modules/x.go"}},
		{"", "**/node_modules/*.go", nil},
	} {
		got := files(t, dir, tc.root, tc.pattern)
		if !slices.Equal(got, tc.want) {
			t.Errorf("root=%q pattern=%q: got %q, want %q", tc.root, tc.pattern, got, tc.want)
		}
	}
}

// TestTypeNarrowingAgreesWithGlob checks that where a pattern is handed to
// ripgrep as a file type, ripgrep's reading of it is the same as Tether's:
// narrowing must never drop a file the pattern allows.
func TestTypeNarrowingAgreesWithGlob(t *testing.T) {
	names := []string{"a.go", "a.GO", "b.ts", "b.tsx", ".hidden.go", "file1.txt", "file10.txt", "x,y", "main.go", "a.b.c", "noext", "ünï.txt", "{x}", "a b.go"}
	content := map[string]string{}
	for _, n := range names {
		content["d/"+n] = "x\n"
	}
	dir := tree(t, content)
	for _, pattern := range []string{"*.go", "*.{ts,tsx}", "file?.txt", "x,y", "main.go", "*.b.*", "noext", "ünï*", "*.{go,GO}", "a b.*", "?"} {
		g, err := CompileGlob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if g.typeGlob() == "" || !g.byRg() {
			t.Errorf("%q is not narrowed, or not left to ripgrep; the test expects it to be", pattern)
			continue
		}
		var want []string
		for _, n := range names {
			if g.Allows("d/" + n) {
				want = append(want, "d/"+n)
			}
		}
		slices.Sort(want)
		if got := files(t, dir, "", pattern); !slices.Equal(got, want) {
			t.Errorf("%q: ripgrep with the type gives %q, Tether's matcher %q", pattern, got, want)
		}
	}
}

func TestLiteralDirNotThroughSymlink(t *testing.T) {
	dir := project(t)
	outside := tree(t, map[string]string{"secret/s.go": "needle\n"})
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir, "", "link/*.go"); len(got) != 0 {
		t.Fatalf("walked through a symlink out of the tree: %q", got)
	}
	if got := searchRoot(dir, "", mustGlob(t, "link/*.go")); got != "." {
		t.Fatalf("search root %q, want .", got)
	}
	if got := searchRoot(dir, "", mustGlob(t, "cmd/tool/*.go")); got != "cmd/tool" {
		t.Fatalf("search root %q, want cmd/tool", got)
	}
}

func mustGlob(t *testing.T, p string) *Glob {
	t.Helper()
	g, err := CompileGlob(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestFilesLimit(t *testing.T) {
	dir := project(t)
	res, err := Files(context.Background(), FilesQuery{Rg: needRg(t), Dir: dir, MaxPaths: 2, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	// The first two of the sorted list, and the count of all.
	all := files(t, dir, "", "")
	if res.Stop != AtLimit || !slices.Equal(res.Paths, all[:2]) || res.Total != len(all) || res.AtLeast {
		t.Fatalf("%+v, want the first two of %q", res, all)
	}
	// Exactly as many as the limit is complete, not truncated.
	res, err = Files(context.Background(), FilesQuery{Rg: needRg(t), Dir: dir, Glob: mustGlob(t, "*.go"), MaxPaths: 3, MaxBytes: 1 << 20})
	if err != nil || res.Stop != Complete || len(res.Paths) != 3 {
		t.Fatalf("%+v %v", res, err)
	}
}

// Only a name pattern ripgrep reads whole is left to ripgrep alone.
func TestByRg(t *testing.T) {
	for pattern, want := range map[string]bool{
		"*.go": true, "*.{ts,tsx}": true, "cmd/*.go": false, "!*.md": false, "docs/": false, "**/testdata/**": false, "[ab].go": false, "/main.go": false,
	} {
		if got := mustGlob(t, pattern).byRg(); got != want {
			t.Errorf("%q: byRg %v, want %v", pattern, got, want)
		}
	}
}

// Paths sort as ripgrep's --sort path lists them: by name, folder by folder.
func TestComparePaths(t *testing.T) {
	sorted := []string{".github/ci.yml", ".gitignore", "a/b/c.go", "a/z.go", "a-b.go", "a.go", "ab/x", "b"}
	for i := range sorted {
		for j := range sorted {
			if got, want := comparePaths(sorted[i], sorted[j]), cmpInt(i, j); got != want {
				t.Errorf("comparePaths(%q, %q) = %d, want %d", sorted[i], sorted[j], got, want)
			}
		}
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func grep(t *testing.T, q GrepQuery) GrepResult {
	t.Helper()
	q.Rg = needRg(t)
	if q.MaxLines == 0 {
		q.MaxLines = 1000
	}
	if q.MaxBytes == 0 {
		q.MaxBytes = 1 << 20
	}
	if q.MaxColumns == 0 {
		q.MaxColumns = 200
	}
	res, err := Grep(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGrepWalk(t *testing.T) {
	dir := project(t)
	for _, tc := range []struct {
		root, glob, want string
	}{
		{"", "", ".github/ci.yml:1:needle: true\ncmd/tool/notes.md:1:needle\ncmd/tool/tool.go:1:package tool // needle\nmain.go:1:package main // needle\nsub/build/keep.go:1:needle\n"},
		{"", "*.go", "cmd/tool/tool.go:1:package tool // needle\nmain.go:1:package main // needle\nsub/build/keep.go:1:needle\n"},
		{"", "!*.go", ".github/ci.yml:1:needle: true\ncmd/tool/notes.md:1:needle\n"},
		{"", "cmd/**", "cmd/tool/notes.md:1:needle\ncmd/tool/tool.go:1:package tool // needle\n"},
		{"", "*.log", ""},
		{"cmd", "tool/*.md", "cmd/tool/notes.md:1:needle\n"},
		{"main.go", "", "main.go:1:package main // needle\n"},
		{"node_modules", "", "node_modules/x.go:1:needle\n"},
	} {
		q := GrepQuery{Dir: dir, Root: tc.root, Pattern: "needle"}
		if tc.glob != "" {
			q.Glob = mustGlob(t, tc.glob)
		}
		if got := grep(t, q); got.Text != tc.want || got.Stop != Complete {
			t.Errorf("root=%q glob=%q: got %q (%v), want %q", tc.root, tc.glob, got.Text, got.Stop, tc.want)
		}
	}
}

func TestGrepContextAndSeparators(t *testing.T) {
	dir := tree(t, map[string]string{
		"b.txt":           "1\nhit\n3\n4\n5\n6\nhit\n8\n",
		"a.txt":           "hit\n2\n",
		"c:-odd-name.txt": "x\nhit\n",
	})
	got := grep(t, GrepQuery{Dir: dir, Pattern: "hit", Before: 1, After: 1})
	want := "a.txt:1:hit\na.txt-2-2\n--\nb.txt-1-1\nb.txt:2:hit\nb.txt-3-3\n--\nb.txt-6-6\nb.txt:7:hit\nb.txt-8-8\n--\nc:-odd-name.txt-1-x\nc:-odd-name.txt:2:hit\n"
	if got.Text != want || got.Lines != 10 {
		t.Fatalf("got (%d lines)\n%s\nwant\n%s", got.Lines, got.Text, want)
	}
	// Context lines count toward the limit.
	got = grep(t, GrepQuery{Dir: dir, Root: "b.txt", Pattern: "hit", Before: 1, After: 1, MaxLines: 4})
	if got.Stop != AtLimit || got.Text != "b.txt-1-1\nb.txt:2:hit\nb.txt-3-3\n--\nb.txt-6-6\n" {
		t.Fatalf("got %v %q", got.Stop, got.Text)
	}
}

func TestGrepFlags(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "Hello\nhello\n", "min.js": strings.Repeat("x", 5000) + "needle\n", "-dash.txt": "-e\n"})
	if got := grep(t, GrepQuery{Dir: dir, Pattern: "hello", IgnoreCase: true}); got.Text != "a.txt:1:Hello\na.txt:2:hello\n" {
		t.Errorf("ignore case: %q", got.Text)
	}
	if got := grep(t, GrepQuery{Dir: dir, Pattern: "hello"}); got.Text != "a.txt:2:hello\n" {
		t.Errorf("case sensitive: %q", got.Text)
	}
	got := grep(t, GrepQuery{Dir: dir, Pattern: "needle", MaxColumns: 100})
	if !strings.HasPrefix(got.Text, "min.js:1:xxxx") || len(got.Text) > 200 || !strings.Contains(got.Text, "omitted") {
		t.Errorf("long line: %q", got.Text)
	}
	// A pattern or path starting with a dash is not read as a flag.
	if got := grep(t, GrepQuery{Dir: dir, Root: "-dash.txt", Pattern: "-e"}); got.Text != "-dash.txt:1:-e\n" {
		t.Errorf("dashes: %q", got.Text)
	}
}

func TestGrepBadRegex(t *testing.T) {
	_, err := Grep(context.Background(), GrepQuery{Rg: needRg(t), Dir: t.TempDir(), Pattern: "a(", MaxLines: 10, MaxBytes: 100})
	rgErr, ok := err.(*RgError)
	if !ok || !strings.Contains(rgErr.Stderr, "regex parse error") || strings.Contains(rgErr.Stderr, "--debug") {
		t.Fatalf("err = %#v", err)
	}
}

func TestGrepNoMatchesIsNotAnError(t *testing.T) {
	dir := project(t)
	for _, glob := range []string{"", "*.nothing", "zzz/*.go"} {
		q := GrepQuery{Dir: dir, Pattern: "absent"}
		if glob != "" {
			q.Glob = mustGlob(t, glob)
		}
		if got := grep(t, q); got.Text != "" || got.Stop != Complete {
			t.Errorf("glob %q: %+v", glob, got)
		}
	}
}

// Past MaxScan units the answer is read again in path order: the page is
// still the right one, and the total a lower bound. A page far into the
// answer is read in path order too, keeping only the page.
func TestGrepPagesLargeAnswers(t *testing.T) {
	n := max(MaxScan, maxKeep) // lines per file: three are more than either bound
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		sb.WriteString("hit " + strconv.Itoa(i) + "\n")
	}
	dir := tree(t, map[string]string{"c.txt": sb.String(), "a.txt": sb.String(), "b.txt": sb.String()})
	got := grep(t, GrepQuery{Dir: dir, Pattern: "hit", MaxLines: 2})
	if got.Text != "a.txt:1:hit 1\na.txt:2:hit 2\n" || got.Stop != AtLimit || !got.AtLeast || got.Total < MaxScan {
		t.Fatalf("first page: %+v", got)
	}
	got = grep(t, GrepQuery{Dir: dir, Pattern: "hit", MaxLines: 2, Offset: 2*n + 9})
	if got.Text != "c.txt:10:hit 10\nc.txt:11:hit 11\n" || got.Stop != AtLimit {
		t.Fatalf("far page: %+v", got)
	}
	// The last page of an ordered read knows the total.
	got = grep(t, GrepQuery{Dir: dir, Pattern: "hit", MaxLines: 5, Offset: 3*n - 1})
	if want := fmt.Sprintf("c.txt:%d:hit %d\n", n, n); got.Text != want || got.Stop != Complete || got.AtLeast || got.Total != 3*n {
		t.Fatalf("last page: %+v", got)
	}
}

func TestGrepModes(t *testing.T) {
	dir := tree(t, map[string]string{"b.txt": "hit\nhit\n", "a.txt": "hit\n", "c.txt": "miss\n", "d/e.txt": "hit\n"})
	got := grep(t, GrepQuery{Dir: dir, Pattern: "hit", Mode: FilesWithMatches})
	if got.Text != "a.txt\nb.txt\nd/e.txt\n" || got.Total != 3 || got.Stop != Complete {
		t.Errorf("files: %+v", got)
	}
	got = grep(t, GrepQuery{Dir: dir, Pattern: "hit", Mode: Counts, MaxLines: 2})
	if got.Text != "a.txt:1\nb.txt:2\n" || got.Total != 3 || got.Matches != 4 || got.Files != 3 || got.Stop != AtLimit {
		t.Errorf("counts: %+v", got)
	}
	got = grep(t, GrepQuery{Dir: dir, Root: "b.txt", Pattern: "hit", Mode: Counts})
	if got.Text != "b.txt:2\n" {
		t.Errorf("count of one file: %+v", got)
	}
}
