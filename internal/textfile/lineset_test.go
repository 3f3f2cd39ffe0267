package textfile

import (
	"reflect"
	"testing"
)

func TestAddMerges(t *testing.T) {
	tests := []struct {
		name string
		adds [][2]int
		want []LineRange
	}{
		{"single", [][2]int{{1, 10}}, []LineRange{{1, 10}}},
		{"adjacent merge", [][2]int{{1, 10}, {11, 20}}, []LineRange{{1, 20}}},
		{"gap kept", [][2]int{{1, 10}, {12, 20}}, []LineRange{{1, 10}, {12, 20}}},
		{"gap filled", [][2]int{{1, 10}, {12, 20}, {11, 11}}, []LineRange{{1, 20}}},
		{"overlap out of order", [][2]int{{50, 60}, {1, 5}, {4, 52}}, []LineRange{{1, 60}}},
		{"contained", [][2]int{{1, 100}, {20, 30}}, []LineRange{{1, 100}}},
		{"spans several", [][2]int{{1, 2}, {5, 6}, {9, 10}, {3, 8}}, []LineRange{{1, 10}}},
		{"inverted ignored", [][2]int{{5, 4}}, nil},
		{"zero start clamps", [][2]int{{0, 3}}, []LineRange{{1, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s LineSet
			for _, a := range tt.adds {
				s.Add(a[0], a[1])
			}
			if got := s.Ranges(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ranges = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCoversNeedsEveryLine(t *testing.T) {
	var s LineSet
	s.Add(1, 1)
	s.Add(100, 100)
	if s.Covers(1, 100) {
		t.Fatal("first and last line alone must not cover the file")
	}
	if got := FormatLineRanges(s.Missing(100)); got != "2-99" {
		t.Fatalf("missing = %q, want 2-99", got)
	}
	s.Add(2, 99)
	if !s.Covers(1, 100) {
		t.Fatal("full read not recognised")
	}
	if !s.Covers(5, 4) {
		t.Fatal("empty span must be covered")
	}
}

func TestClip(t *testing.T) {
	var s LineSet
	s.Add(1, 10)
	s.Add(20, 30)
	s.Clip(25)
	if got := s.Ranges(); !reflect.DeepEqual(got, []LineRange{{1, 10}, {20, 25}}) {
		t.Fatalf("clip = %v", got)
	}
}

// FuzzAdd checks the set against a plain bitmap for any sequence of adds.
func FuzzAdd(f *testing.F) {
	f.Add([]byte{1, 5, 7, 9, 6, 6})
	f.Add([]byte{10, 3, 0, 0, 255, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		const n = 64
		var s LineSet
		var bits [n + 2]bool
		for i := 0; i+1 < len(data); i += 2 {
			a, b := int(data[i]%n)+1, int(data[i+1]%n)+1
			s.Add(a, b)
			for l := a; l <= b; l++ {
				bits[l] = true
			}
		}
		rs := s.Ranges()
		for i := 1; i < len(rs); i++ {
			if rs[i].Start <= rs[i-1].End+1 {
				t.Fatalf("ranges not disjoint and separated: %v", rs)
			}
		}
		for l := 1; l <= n; l++ {
			if s.Covers(l, l) != bits[l] {
				t.Fatalf("line %d: covers=%v want %v (ranges %v)", l, s.Covers(l, l), bits[l], rs)
			}
		}
		for a := 1; a <= n; a += 7 {
			for b := a; b <= n; b += 5 {
				want := true
				for l := a; l <= b; l++ {
					want = want && bits[l]
				}
				if s.Covers(a, b) != want {
					t.Fatalf("covers(%d,%d)=%v want %v (ranges %v)", a, b, !want, want, rs)
				}
			}
		}
	})
}
