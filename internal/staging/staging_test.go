package staging

import (
	"strings"
	"testing"
)

func TestAddListGetRemove(t *testing.T) {
	s := Open(t.TempDir())
	if got, err := s.List(); err != nil || len(got) != 0 {
		t.Fatalf("empty store: %v %v", got, err)
	}
	a, err := s.Add(Entry{Tool: "edit_file", Title: "Edit a.go", Diff: "d1", Changes: []Change{{Kind: Write, Path: "/w/a.go", Existed: true, Before: []byte("x\r\n"), After: []byte("y\r\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Add(Entry{Tool: "delete_file", Title: "Delete b.go", Changes: []Change{{Kind: Delete, Path: "/w/b.go", Existed: true, Before: []byte("b")}}})
	again := Open(s.Dir()) // another process sees the same list
	all, err := again.List()
	if err != nil || len(all) != 2 {
		t.Fatalf("list: %v %v", all, err)
	}
	got, err := again.Get(a.ID)
	if err != nil || string(got.Changes[0].After) != "y\r\n" || string(got.Changes[0].Before) != "x\r\n" {
		t.Fatalf("bytes not kept exactly: %+v %v", got, err)
	}
	if _, err := again.Get(a.ID[:len(a.ID)-6]); err == nil && a.ID[:15] == b.ID[:15] {
		t.Fatal("an ambiguous prefix must be refused")
	}
	if err := again.Remove(b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Get(b.ID); err == nil || !strings.Contains(err.Error(), "staged/list") {
		t.Fatalf("removed entry: %v", err)
	}
	if err := again.Remove(b.ID); err == nil {
		t.Fatal("removing twice must fail")
	}
}
