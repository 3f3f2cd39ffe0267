package edit

import (
	"testing"

	"github.com/tether-dev/tether/internal/edit/edittest"
)

func BenchmarkApply10MB(b *testing.B) {
	for _, eol := range []struct{ name, eol string }{{"LF", "\n"}, {"CRLF", "\r\n"}} {
		b.Run(eol.name, func(b *testing.B) {
			content := []byte(edittest.BigSource(10<<20, eol.eol))
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				if _, err := Apply(content, Edit{Old: "uniqueNeedle()", New: "uniqueNeedle2()"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkClosest10MB(b *testing.B) {
	content := []byte(edittest.BigSource(10<<20, "\n"))
	for _, tc := range []struct{ name, old string }{
		{"indentation", "    value0100000 := compute(700000, \"some text\") // comment\n    value0100001 := compute(700007, \"some text\") // comment\n"},
		{"typo", "\tvalue0150000 := comptue(1050000, \"some text\") // comment"},
		{"nothing alike", "zebra quagga okapi"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				Closest(content, tc.old)
			}
		})
	}
}
