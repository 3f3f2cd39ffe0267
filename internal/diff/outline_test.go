package diff

import (
	"reflect"
	"testing"
)

func TestOutlines(t *testing.T) {
	edit := Unified("a/main.go", "b/main.go", []byte("a\n-- b\nc\n"), []byte("a\n--- b\nc\nd\n"))
	created := Unified("/dev/null", "b/new.txt", nil, []byte("x\ny\n"))
	deleted := Unified("a/old.txt", "/dev/null", []byte("gone\n"), nil)
	for _, tc := range []struct {
		name string
		in   string
		want Outline
	}{
		{"an edit whose lines look like headers", edit, Outline{Files: []string{"main.go"}, Hunks: 1, Added: 2, Removed: 1, Lines: 8}},
		{"a new file", created, Outline{Files: []string{"new.txt"}, Hunks: 1, Added: 2, Lines: 5}},
		{"a deletion", deleted, Outline{Files: []string{"old.txt"}, Hunks: 1, Removed: 1, Lines: 4}},
		{"several files", created + deleted, Outline{Files: []string{"new.txt", "old.txt"}, Hunks: 2, Added: 2, Removed: 1, Lines: 9}},
		{"a move", "rename from a.txt\nrename to b/a.txt\n", Outline{Files: []string{"b/a.txt"}, Lines: 2}},
		{"no newline at the end", Unified("a/f", "b/f", []byte("x"), []byte("y")), Outline{Files: []string{"f"}, Hunks: 1, Added: 1, Removed: 1, Lines: 7}},
		{"nothing", "", Outline{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Outlines(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Outlines(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}
