package search

import "testing"

func TestDisplayPath(t *testing.T) {
	tests := []struct {
		printed string
		sep     byte
		want    string
	}{
		{"./src/a.go", '/', "src/a.go"},
		{"src/a.go", '/', "src/a.go"},
		{`dir\with\backslash.go`, '/', `dir\with\backslash.go`}, // a name, not separators
		{`.\src\a.go`, '\\', "src/a.go"},
		{`src\sub\a.go`, '\\', "src/sub/a.go"},
		{`C:\work\a.go`, '\\', "C:/work/a.go"},
		{"./x", '\\', "x"},
	}
	for _, tt := range tests {
		if got := displayPathSep(tt.printed, tt.sep); got != tt.want {
			t.Errorf("displayPathSep(%q, %q) = %q, want %q", tt.printed, tt.sep, got, tt.want)
		}
	}
}

func TestRunnableExt(t *testing.T) {
	tests := []struct {
		ext, pathext string
		want         bool
	}{
		{".exe", "", true},
		{".EXE", ".COM;.EXE;.BAT", true},
		{".cmd", "", true},
		{"", "", false},
		{".txt", ".COM;.EXE", false},
		{".ps1", ".COM;.EXE;.PS1", true},
	}
	for _, tt := range tests {
		if got := runnableExt(tt.ext, tt.pathext); got != tt.want {
			t.Errorf("runnableExt(%q, %q) = %v, want %v", tt.ext, tt.pathext, got, tt.want)
		}
	}
}
