package undo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUnchangedSince(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	tests := []struct {
		name   string
		before func() // the state observed
		then   func() // what happens next
		want   bool
	}{
		{"untouched", func() { os.WriteFile(p, []byte("a"), 0o644) }, func() {}, true},
		{"rewritten in place", func() { os.WriteFile(p, []byte("a"), 0o644) },
			func() { os.WriteFile(p, []byte("bb"), 0o644) }, false},
		{"replaced by rename", func() { os.WriteFile(p, []byte("a"), 0o644) },
			func() { os.WriteFile(p+".new", []byte("a"), 0o644); os.Rename(p+".new", p) }, false},
		{"removed", func() { os.WriteFile(p, []byte("a"), 0o644) }, func() { os.Remove(p) }, false},
		{"chmod", func() { os.WriteFile(p, []byte("a"), 0o644) }, func() { os.Chmod(p, 0o600) }, false},
		{"still absent", func() { os.Remove(p) }, func() {}, true},
		{"appeared", func() { os.Remove(p) }, func() { os.WriteFile(p, []byte("a"), 0o644) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.before()
			_, fi, err := observe(p)
			if err != nil {
				t.Fatal(err)
			}
			tt.then()
			if got := unchangedSince(p, fi); got != tt.want {
				t.Errorf("unchangedSince = %v, want %v", got, tt.want)
			}
		})
	}
}
