package textfile

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		in   string
		want Shape
	}{
		{"", Shape{EOL: "\n"}},
		{"a\nb\n", Shape{EOL: "\n"}},
		{"a\r\nb\r\n", Shape{EOL: "\r\n"}},
		{"a\r\nb\r\nc\n", Shape{EOL: "\r\n", Mixed: true}},
		{"a\nb\nc\r\n", Shape{EOL: "\n", Mixed: true}},
		{"\uFEFFx\r\n", Shape{BOM: true, EOL: "\r\n"}},
	}
	for _, tt := range tests {
		if got := Detect([]byte(tt.in)); got != tt.want {
			t.Errorf("Detect(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestCountLinesAndEOL(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n\n": 2} {
		if got := CountLines([]byte(in)); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", in, got, want)
		}
	}
	if got := ToEOL("a\nb\r\nc", "\r\n"); got != "a\r\nb\r\nc" {
		t.Errorf("ToEOL = %q", got)
	}
	if got := ToEOL("a\r\nb\n", "\n"); got != "a\nb\n" {
		t.Errorf("ToEOL to LF = %q", got)
	}
	if got := ToLF("a\r\nb\n"); got != "a\nb\n" {
		t.Errorf("ToLF = %q", got)
	}
	if ok, at := ValidUTF8([]byte("ab\xffc")); ok || at != 2 {
		t.Errorf("ValidUTF8 = %v %d", ok, at)
	}
	if !IsBinary([]byte("x\x00y")) || IsBinary([]byte("plain")) {
		t.Error("IsBinary")
	}
}
