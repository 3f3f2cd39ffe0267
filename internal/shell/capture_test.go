package shell

import (
	"bytes"
	"strings"
	"testing"
)

func TestCaptureKeepsEverythingThatFits(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
	}{
		{"nothing", nil},
		{"one write", []string{"hello\n"}},
		{"many small writes", []string{"a", "b\n", "c", "d\n"}},
		{"exactly the cap", []string{strings.Repeat("x", 100)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCapture(100)
			var want strings.Builder
			for _, w := range tt.writes {
				c.Write([]byte(w))
				want.WriteString(w)
			}
			if got := c.String(); got != want.String() {
				t.Errorf("String() = %q, want %q", got, want.String())
			}
			if c.Truncated() {
				t.Errorf("Truncated() = true for output that fits")
			}
		})
	}
}

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	var lines bytes.Buffer
	for i := 0; i < 1000; i++ {
		lines.WriteString(strings.Repeat("x", 9) + "\n")
	}
	lines.WriteString("FATAL: the real error\n")
	tests := []struct {
		name  string
		chunk int
	}{
		{"one big write", lines.Len()},
		{"byte by byte", 1},
		{"odd chunks", 37},
		{"chunks larger than the tail", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCapture(400)
			data := lines.Bytes()
			for i := 0; i < len(data); i += tt.chunk {
				c.Write(data[i:min(i+tt.chunk, len(data))])
			}
			s := c.String()
			if !strings.HasPrefix(s, "xxxxxxxxx\n") {
				t.Errorf("head lost: %q", s[:20])
			}
			if !strings.HasSuffix(s, "FATAL: the real error\n") {
				t.Errorf("the last error is lost: %q", s[len(s)-40:])
			}
			if !strings.Contains(s, "omitted") || !c.Truncated() {
				t.Errorf("no marker for the cut")
			}
			if len(s) > 400+100 {
				t.Errorf("kept %d bytes, cap 400", len(s))
			}
			if c.Total() != int64(lines.Len()) {
				t.Errorf("Total = %d, want %d", c.Total(), lines.Len())
			}
			// Cuts fall on line boundaries: every kept line is whole.
			for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
				if l != "xxxxxxxxx" && !strings.HasPrefix(l, "FATAL") && !strings.Contains(l, "omitted") {
					t.Errorf("a partial line was kept: %q", l)
				}
			}
		})
	}
}

func TestCaptureSeesBinary(t *testing.T) {
	c := NewCapture(100)
	c.Write([]byte(strings.Repeat("text ", 100)))
	c.Write([]byte{0x89, 'P', 'N', 'G', 0})
	if !c.Binary() {
		t.Errorf("a NUL byte past the head was missed")
	}
}
