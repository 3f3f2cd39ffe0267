package diff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/diff/difftest"
)

func numbered(n int, format string) []byte {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, format, i)
	}
	return []byte(sb.String())
}

func repeat(s string, n int) []byte { return []byte(strings.Repeat(s, n)) }

// roundTripCases are the shapes of change most likely to trip a diff: the
// ends of a file, the final newline, line endings and BOMs, and sizes.
func roundTripCases() []struct {
	name string
	a, b []byte
} {
	hugeLine := repeat("abcdefghij", 200_000) // 2 MB, no newline
	hugeEdited := bytes.Clone(hugeLine)
	hugeEdited[1_000_000] = 'X'

	manyHunks := numbered(1000, "line %d\n")
	manyEdited := bytes.ReplaceAll(manyHunks, []byte("0\n"), []byte("0 edited\n"))

	identical := repeat("x\n", 1000)
	identicalEdited := slices.Concat(repeat("x\n", 100), []byte("y\n"), repeat("x\n", 400), []byte("z\nz\n"), repeat("x\n", 450))

	genA, genB := difftest.Pair(3000, 10, 7)

	return []struct {
		name string
		a, b []byte
	}{
		{"empty to content", nil, []byte("one\ntwo\n")},
		{"content to empty", []byte("one\ntwo\n"), nil},
		{"empty to unterminated", nil, []byte("one")},
		{"unterminated to empty", []byte("one"), nil},
		{"empty file to content", []byte{}, []byte("one\n")},
		{"old lacks final newline", []byte("a\nb\nc"), []byte("a\nb\nd\n")},
		{"new lacks final newline", []byte("a\nb\nc\n"), []byte("a\nb\nd")},
		{"both lack final newline", []byte("a\nb\nc"), []byte("a\nB\nc")},
		{"final newline added", []byte("a\nb\nc"), []byte("a\nb\nc\n")},
		{"final newline removed", []byte("a\nb\nc\n"), []byte("a\nb\nc")},
		{"crlf edit", []byte("one\r\ntwo\r\nthree\r\n"), []byte("one\r\n2\r\nthree\r\n")},
		{"crlf to lf", []byte("one\r\ntwo\r\nthree\r\n"), []byte("one\ntwo\nthree\n")},
		{"lf to crlf", []byte("one\ntwo\nthree"), []byte("one\r\ntwo\r\nthree")},
		{"mixed endings", []byte("a\r\nb\nc\r\nd\n"), []byte("a\nb\r\nc\r\nd\r\nd\n")},
		{"crlf unterminated last", []byte("a\r\nb\r"), []byte("a\r\nc\r")},
		{"lone cr", []byte("a\rb\nc\n"), []byte("a\rB\nc\n")},
		{"bom added", []byte("one\ntwo\n"), []byte("\uFEFFone\ntwo\n")},
		{"bom removed", []byte("\uFEFFone\r\ntwo\r\n"), []byte("one\r\ntwo\r\n")},
		{"single huge line", hugeLine, hugeEdited},
		{"huge line to short", hugeLine, []byte("short\n")},
		{"edit at start", numbered(50, "%d\n"), append([]byte("first\n"), numbered(50, "%d\n")[2:]...)},
		{"edit at end", numbered(50, "%d\n"), append(numbered(49, "%d\n"), "last"...)},
		{"many hunks", manyHunks, manyEdited},
		{"identical lines", identical, identicalEdited},
		{"blank lines", []byte("\n\n\na\n\n\n"), []byte("\n\na\n\n\n\n\nb\n")},
		{"hunks six apart merge", numbered(30, "%d\n"), bytes.Replace(bytes.Replace(numbered(30, "%d\n"), []byte("\n5\n"), []byte("\nfive\n"), 1), []byte("\n12\n"), []byte("\ntwelve\n"), 1)},
		{"hunks seven apart split", numbered(30, "%d\n"), bytes.Replace(bytes.Replace(numbered(30, "%d\n"), []byte("\n5\n"), []byte("\nfive\n"), 1), []byte("\n13\n"), []byte("\nthirteen\n"), 1)},
		{"lines that look like diff syntax", []byte("--- a\n+++ b\n@@ -1 +1 @@\n\\ x\n"), []byte("--- a\n+++ c\n@@ -1 +1 @@\n\\ y\n")},
		{"generated", genA, genB},
		{"equal", []byte("same\n"), []byte("same\n")},
	}
}

func TestRoundTripPatchAndGitApply(t *testing.T) {
	for _, c := range roundTripCases() {
		t.Run(c.name, func(t *testing.T) {
			patchRoundTrip(t, c.a, c.b)
			checkHunks(t, c.a, c.b, defaultLimits)
			checkHunks(t, c.a, c.b, tiny)
		})
	}
}

func TestUnifiedExactForms(t *testing.T) {
	tests := []struct {
		name, oldName, newName string
		a, b                   string
		want                   string
	}{
		{"created", "/dev/null", "b/f", "", "a\nb\n",
			"--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"deleted", "a/f", "/dev/null", "a\nb\nc", "",
			"--- a/f\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n\\ No newline at end of file\n"},
		{"one line", "a/f", "b/f", "x\n", "y\n",
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n"},
		{"context and newline", "a/f", "b/f", "1\n2\n3\n4\n5\n6\n7\n8", "1\n2\n3\n4\n5\n6\n7\n8\n",
			"--- a/f\n+++ b/f\n@@ -5,4 +5,4 @@\n 5\n 6\n 7\n-8\n\\ No newline at end of file\n+8\n"},
		{"crlf kept", "a/f", "b/f", "x\r\ny\r\n", "x\r\nz\r\n",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\r\n-y\r\n+z\r\n"},
		{"bom only", "a/f", "b/f", "\uFEFFx\n", "x\n",
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-\uFEFFx\n+x\n"},
		{"pure insertion", "a/f", "b/f", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
			"--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a, b []byte
			if tt.a != "" || tt.oldName != "/dev/null" {
				a = []byte(tt.a)
			}
			if tt.b != "" || tt.newName != "/dev/null" {
				b = []byte(tt.b)
			}
			if got := Unified(tt.oldName, tt.newName, a, b); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestBinary(t *testing.T) {
	late := append(repeat("x", 9000), 0, '\n') // a NUL past git's 8000-byte window is text
	tests := []struct {
		name string
		a, b []byte
		want string
	}{
		{"nul", []byte("a\x00b"), []byte("a\x00c"), "Binary files a/f and b/f differ\n"},
		{"invalid utf-8", []byte("caf\xe9\n"), []byte("cafe\n"), "Binary files a/f and b/f differ\n"},
		{"text to binary", []byte("text\n"), []byte("\x00\x01"), "Binary files a/f and b/f differ\n"},
		{"equal binary", []byte("\x00"), []byte("\x00"), ""},
		{"late nul is text", late, []byte("x\n"), "--- a/f\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unified("a/f", "b/f", tt.a, tt.b); !strings.HasPrefix(got, tt.want) || (tt.want == "" && got != "") {
				t.Errorf("got %q, want prefix %q", trunc([]byte(got)), tt.want)
			}
			checkHunks(t, tt.a, tt.b, defaultLimits) // hunks still work on any bytes
		})
	}
	if got := Unified("/dev/null", "b/img", nil, []byte("\x89PNG\x00")); got != "Binary files /dev/null and b/img differ\n" {
		t.Errorf("created binary: %q", got)
	}
}

func TestSummary(t *testing.T) {
	s := Summary([]byte("a\nb\nc\n"), []byte("a\nB\nc\nd\n"))
	if s != (Stats{Added: 2, Removed: 1}) {
		t.Errorf("Summary = %+v", s)
	}
	if got := s.String(); got != "+2 \u22121" {
		t.Errorf("String = %q", got)
	}
	if s := Summary([]byte("x\n"), []byte("x\n")); s != (Stats{}) {
		t.Errorf("equal: %+v", s)
	}
	if s := Summary(nil, []byte("1\n2\n3")); s != (Stats{Added: 3}) {
		t.Errorf("created: %+v", s)
	}
}

func TestDisplay(t *testing.T) {
	a := []byte("\uFEFFone\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\nseven\r\neight\r\nnine\r\nten\r\neleven\r\ntwelve")
	b := []byte("one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\nseven\r\neight\r\nnine\r\nten\r\neleven\r\n12\x1b[2J\r\n")
	want := "" +
		"@@ -1,4 +1,4 @@ hunk 1\n" +
		"   1 │ -<BOM>one␍\n" +
		"   1 │ +one␍\n" +
		"   2 │  two␍\n" +
		"   3 │  three␍\n" +
		"   4 │  four␍\n" +
		"@@ -9,4 +9,4 @@ hunk 2\n" +
		"   9 │  nine␍\n" +
		"  10 │  ten␍\n" +
		"  11 │  eleven␍\n" +
		"  12 │ -twelve\n" +
		"     │ \\ No newline at end of file\n" +
		"  12 │ +12␛[2J␍\n"
	if got := Display(Hunks(a, b)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestApplyHunksSubsets(t *testing.T) {
	a := numbered(40, "%d\n")
	a = a[:len(a)-1] // no final newline
	b := bytes.Replace(a, []byte("\n5\n"), []byte("\nfive\n"), 1)
	b = bytes.Replace(b, []byte("\n20\n"), []byte("\n"), 1)
	b = append(bytes.TrimSuffix(b, []byte("39")), "thirty-nine\n"...)
	hs := checkHunks(t, a, b, defaultLimits)
	if len(hs) != 3 {
		t.Fatalf("want 3 hunks, got %d:\n%s", len(hs), Display(hs))
	}
	only := func(ids ...int) []byte {
		out := a
		if contains(ids, 1) {
			out = bytes.Replace(out, []byte("\n5\n"), []byte("\nfive\n"), 1)
		}
		if contains(ids, 2) {
			out = bytes.Replace(out, []byte("\n20\n"), []byte("\n"), 1)
		}
		if contains(ids, 3) {
			out = append(bytes.TrimSuffix(bytes.Clone(out), []byte("39")), "thirty-nine\n"...)
		}
		return out
	}
	for _, keep := range [][]int{{1}, {2}, {3}, {1, 3}, {2, 3}, {3, 1, 2}, {}, {7}} {
		if got, want := ApplyHunks(a, hs, keep), only(keep...); !bytes.Equal(got, want) {
			t.Errorf("keep %v: got %q, want %q", keep, got, want)
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestMinimal checks that small inputs, which go to Myers whole, get a
// smallest diff: as few changed lines as a longest common subsequence allows.
func TestMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		a, b := randomLines(r, 30, 3), randomLines(r, 30, 3)
		st := Summary(a, b)
		la, lb := lineStrings(a), lineStrings(b)
		if want := len(la) + len(lb) - 2*lcsLen(la, lb); st.Added+st.Removed != want {
			t.Fatalf("%q → %q: %d changed lines, minimum is %d", a, b, st.Added+st.Removed, want)
		}
	}
}

func lcsLen(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// randomLines makes up to n lines drawn from an alphabet of k, sometimes
// without a final newline, so most lines repeat.
func randomLines(r *rand.Rand, n, k int) []byte {
	var sb strings.Builder
	for range r.IntN(n + 1) {
		fmt.Fprintf(&sb, "%c\n", 'a'+r.IntN(k))
	}
	s := sb.String()
	if s != "" && r.IntN(4) == 0 {
		s = s[:len(s)-1]
	}
	return []byte(s)
}

// TestRandomRoundTrip runs many small random edits through all three paths
// (Myers, anchoring, remove-and-re-add) by varying the limits.
func TestRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		a := randomLines(r, 40, 2+r.IntN(30))
		b := mutate(r, a)
		for _, lim := range []limits{defaultLimits, tiny, {small: 0, myers: 0, work: 0, depth: 0}} {
			checkHunks(t, a, b, lim)
		}
	}
}

// mutate edits a few random lines of a, so that a and b share most lines.
func mutate(r *rand.Rand, a []byte) []byte {
	lines := lineStrings(a)
	for range r.IntN(6) {
		i := r.IntN(len(lines) + 1)
		switch r.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{fmt.Sprintf("new %d\n", r.IntN(100))}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2:
			if i < len(lines) {
				lines[i] = fmt.Sprintf("changed %d\n", r.IntN(100))
			}
		}
	}
	return []byte(strings.Join(lines, ""))
}

func TestDeterministic(t *testing.T) {
	inputs := [][2][]byte{}
	for _, pct := range []float64{1, 30} {
		a, b := difftest.Pair(20_000, pct, 9)
		inputs = append(inputs, [2][]byte{a, b})
	}
	for _, c := range pathological() {
		inputs = append(inputs, [2][]byte{c.a, c.b})
	}
	for _, in := range inputs {
		first := Unified("a/f", "b/f", in[0], in[1])
		for range 3 {
			if Unified("a/f", "b/f", in[0], in[1]) != first {
				t.Fatal("the same inputs gave different diffs")
			}
		}
	}
}

// pathological inputs must finish quickly (there is no timed assertion:
// a slow run shows as a slow test) with a correct diff.
func pathological() []struct {
	name string
	a, b []byte
} {
	identical := repeat("x\n", 100_000)
	sparse := bytes.Clone(identical)
	for i := 1000; i < len(sparse); i += 2000 {
		sparse[i] = 'y' // every 1000th line becomes "y"
	}
	shifted := bytes.Clone(identical)
	for i := 1000; i < len(shifted); i += 2000 {
		shifted[i] = 'y'
	}
	shifted = append(repeat("y\n", 500), shifted[:len(shifted)-1000]...)

	// Blocks of 900 lines that share their lines in another order (costly
	// for Myers) between unique anchors, enough to exhaust the Myers budget.
	var blocksA, blocksB strings.Builder
	for blk := range 40 {
		fmt.Fprintf(&blocksA, "anchor %d\n", blk)
		fmt.Fprintf(&blocksB, "anchor %d\n", blk)
		for i := range 900 {
			fmt.Fprintf(&blocksA, "c%d\n", i%7)
			fmt.Fprintf(&blocksB, "c%d\n", (i*3+i/7)%7)
		}
	}

	var alt strings.Builder
	for i := range 100_000 {
		if i%2 == 0 {
			fmt.Fprintf(&alt, "line %d\n", i)
		} else {
			fmt.Fprintf(&alt, "LINE %d\n", i)
		}
	}

	return []struct {
		name string
		a, b []byte
	}{
		{"100k lines all changed", numbered(100_000, "line %d\n"), numbered(100_000, "LINE %d\n")},
		{"100k repeated lines all changed", repeat("a\nb\nc\n", 33_333), repeat("d\ne\n", 50_000)},
		{"100k lines every other changed", numbered(100_000, "line %d\n"), []byte(alt.String())},
		{"100k identical lines, sparse edits", identical, sparse},
		{"100k identical lines, shifted edits", identical, shifted},
		{"100k identical lines to half", identical, identical[:100_000]},
		{"reversed", numbered(20_000, "line %d\n"), reverseLines(numbered(20_000, "line %d\n"))},
		{"lopsided", []byte("p\nq\nr\n"), repeat("s\nt\n", 20_000)},
		{"myers worst case blocks", []byte(blocksA.String()), []byte(blocksB.String())},
		{"2 MB line changed", repeat("a", 2<<20), append(repeat("a", 2<<20-1), 'b')},
		{"2 MB line to lines", repeat("a", 2<<20), repeat("a\n", 1<<20)},
	}
}

func reverseLines(p []byte) []byte {
	lines := lineStrings(p)
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return []byte(strings.Join(lines, ""))
}

func TestPathological(t *testing.T) {
	for _, c := range pathological() {
		t.Run(c.name, func(t *testing.T) {
			checkHunks(t, c.a, c.b, defaultLimits)
		})
	}
	// One pair through the real tools too.
	c := pathological()[1]
	patchRoundTrip(t, c.a, c.b)
}

func TestSmallerThanRemoveAll(t *testing.T) {
	// Anchored files must not degrade to removing everything.
	a, b := difftest.Pair(100_000, 1, 1)
	st := Summary(a, b)
	if n := len(lineStrings(a)); st.Removed > n/20 {
		t.Errorf("1%% edit of %d lines removed %d", n, st.Removed)
	}
}

// TestHunkGrouping checks diff -u's rule: changes with at most 2·context
// unchanged lines between them share a hunk.
func TestHunkGrouping(t *testing.T) {
	a := numbered(30, "%d\n")
	for _, tt := range []struct {
		second string
		want   int
	}{{"12", 1}, {"13", 2}} { // six and seven unchanged lines after "5"
		b := bytes.Replace(a, []byte("\n5\n"), []byte("\nfive\n"), 1)
		b = bytes.Replace(b, []byte("\n"+tt.second+"\n"), []byte("\nedited\n"), 1)
		if hs := Hunks(a, b); len(hs) != tt.want {
			t.Errorf("edits at 5 and %s: %d hunks, want %d", tt.second, len(hs), tt.want)
		}
	}
}
