package diff

import (
	"bytes"
	"testing"
)

// FuzzUnifiedRoundTrip checks, in pure Go, that keeping every hunk turns a
// into b and keeping none leaves a, under the default limits and under tiny
// ones that force the anchoring and fallback paths; that the rendered text
// applies to a to give b; that the diff does not change between runs; and
// that hunks applied to the wrong file do not panic.
func FuzzUnifiedRoundTrip(f *testing.F) {
	for _, c := range roundTripCases() {
		if len(c.a)+len(c.b) < 10_000 {
			f.Add(c.a, c.b)
		}
	}
	f.Add([]byte("a\nb\na\nb\n"), []byte("b\na\nb\na"))
	f.Add([]byte("x\r\n\r\n\n"), []byte("\r\n\n\r"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		hs := checkHunks(t, a, b, defaultLimits)
		checkHunks(t, a, b, tiny)
		ApplyHunks(b, hs, allIDs(hs)) // stale hunks: a wrong result, but no panic
		u := Unified("a/f", "b/f", a, b)
		if u != Unified("a/f", "b/f", a, b) {
			t.Fatal("Unified is not deterministic")
		}
		if u != "" && !isBinary(a) && !isBinary(b) {
			if got := applyUnified(t, a, u); !bytes.Equal(got, b) {
				t.Fatalf("Unified does not apply: got %q, want %q", got, b)
			}
		}
		st := Summary(a, b)
		var added, removed int
		for _, h := range Hunks(a, b) {
			for _, l := range h.Lines {
				switch l.Kind {
				case '+':
					added++
				case '-':
					removed++
				}
			}
		}
		if st != (Stats{added, removed}) {
			t.Fatalf("Summary %+v disagrees with Hunks (+%d -%d)", st, added, removed)
		}
	})
}
