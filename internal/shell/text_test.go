package shell

import "testing"

func TestCleanOutput(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "ok\n", "ok\n"},
		{"colours", "\x1b[31mFAIL\x1b[0m pkg\n", "FAIL pkg\n"},
		{"cursor moves", "\x1b[2K\x1b[1Gdone\n", "done\n"},
		{"window title", "\x1b]0;title\x07text\n", "text\n"},
		{"progress bar", "10%\r50%\r100%\ndone\n", "100%\ndone\n"},
		{"windows line endings", "a\r\nb\r\n", "a\nb\n"},
		{"invalid utf-8", "bad \xff byte\n", "bad \uFFFD byte\n"},
	}
	for _, tt := range tests {
		if got := CleanOutput(tt.in); got != tt.want {
			t.Errorf("%s: CleanOutput(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
