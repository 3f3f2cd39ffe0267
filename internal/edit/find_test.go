package edit

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/textfile"
)

// all drains a finder, up to max occurrences.
func all(f finder, overlap bool, max int) [][2]int {
	var out [][2]int
	for len(out) < max {
		s, e, ok := f.next(overlap)
		if !ok {
			break
		}
		out = append(out, [2]int{s, e})
	}
	return out
}

func TestFinderSwitchesToFoldingOnPathologicalInput(t *testing.T) {
	many := strings.Repeat("a\r\n", 1000)
	content := []byte(strings.Repeat(strings.Repeat("a\n", 3000)+"a\r\nb\r\n", 3))
	pattern := textfile.ToLF(many + "b")
	for _, overlap := range []bool{false, true} {
		d := newDirectFinder(content, pattern)
		all(d, overlap, 10)
		if !d.gaveUp {
			t.Fatal("the direct search did not give up; the test no longer covers the switch")
		}
		got := all(find(content, pattern), overlap, 10)
		want := all(newFoldedFinder(content, pattern), overlap, 10)
		if len(want) != 3 || !reflect.DeepEqual(got, want) {
			t.Fatalf("overlap=%v: got %v, want %v", overlap, got, want)
		}
	}
}

func TestIndexMatchesBytesIndex(t *testing.T) {
	hay := []byte(strings.Repeat("\tvalue := compute(x) // zq\n", 50) + "needle()" + strings.Repeat("qqqqqqqq", 100) + "qz")
	for _, needle := range []string{"needle()", "qz", "compute", "zzz", "q", "\tvalue", "qqqqqqqqqz"} {
		if got, want := index(hay, []byte(needle)), strings.Index(string(hay), needle); got != want {
			t.Errorf("index(%q) = %d, want %d", needle, got, want)
		}
	}
}

// FuzzFinders checks the direct search against folding the whole file.
func FuzzFinders(f *testing.F) {
	f.Add([]byte("a\r\nb\nc\r\n"), "b\nc\n", false)
	f.Add([]byte("\r\n\r\n\n"), "\n\n", true)
	f.Add([]byte("x\r\r\ny"), "\r\ny", false)
	f.Fuzz(func(t *testing.T, content []byte, old string, overlap bool) {
		pattern := textfile.ToLF(old)
		got := all(find(content, pattern), overlap, 100)
		want := all(newFoldedFinder(content, pattern), overlap, 100)
		if pattern == "" {
			want = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("direct %v, folded %v", got, want)
		}
		if len(content) <= maxReferenceInput {
			ref := referenceMatches(content, old)
			if len(want) > 0 && len(ref) == 0 || len(want) == 0 && len(ref) > 0 {
				t.Fatalf("finders %v, reference %v", want, ref)
			}
		}
	})
}
