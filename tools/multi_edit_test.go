package tools

import (
	"strings"
	"testing"
)

func multiArgs(path string, pairs ...string) map[string]any {
	var edits []map[string]any
	for i := 0; i+1 < len(pairs); i += 2 {
		edits = append(edits, map[string]any{"old_string": pairs[i], "new_string": pairs[i+1]})
	}
	return map[string]any{"path": path, "edits": edits}
}

func TestMultiEditAppliesInOrder(t *testing.T) {
	h := newHarness(t)
	h.write("a.go", "func old() {}\nvar x = old\n")
	h.readWhole("a.go")
	// The second edit finds text the first one wrote.
	got := h.ok("multi_edit", multiArgs("a.go", "func old()", "func renamed()", "renamed() {}", "renamed() { return }", "= old", "= renamed"))
	if !strings.Contains(got, "applied 3 edits (3 replacements)") {
		t.Fatal(got)
	}
	if h.read("a.go") != "func renamed() { return }\nvar x = renamed\n" {
		t.Fatalf("got %q", h.read("a.go"))
	}
	if len(h.host.requests) != 1 {
		t.Fatalf("%d approvals for one multi_edit, want 1", len(h.host.requests))
	}
}

func TestMultiEditIsAllOrNothing(t *testing.T) {
	const file = "alpha\nbeta\ngamma\nbeta\n"
	for _, tc := range []struct {
		name  string
		args  map[string]any
		wants []string
	}{
		{"second not found", multiArgs("a.txt", "alpha", "A", "delta", "D", "gamma", "G"), []string{"Edit 2 of 3 failed", "not found", "None of the edits were written"}},
		{"third ambiguous", multiArgs("a.txt", "alpha", "A", "gamma", "G", "beta", "B"), []string{"Edit 3 of 3 failed", "occurs 2 times", "on lines 2, 4"}},
		{"earlier edit consumed the text", multiArgs("a.txt", "alpha\nbeta", "ab", "beta\ngamma", "bg"), []string{"Edit 2 of 2 failed", "with edit 1 applied", "an earlier edit in this call changed that text"}},
		{"edits that cancel out", multiArgs("a.txt", "alpha", "A", "A", "alpha"), []string{"cancel out"}},
		{"malformed edit", multiArgs("a.txt", "alpha", "A", "", "x"), []string{"Edit 2 of 2 failed", "old_string is empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("a.txt", file)
			h.readWhole("a.txt")
			msg := h.fail("multi_edit", tc.args)
			for _, want := range tc.wants {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			if h.read("a.txt") != file || len(h.host.requests) != 0 {
				t.Fatal("a failed multi_edit wrote or asked")
			}
		})
	}
}

func TestMultiEditNeedsARead(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "x\n")
	if msg := h.fail("multi_edit", multiArgs("a.txt", "x", "y")); !strings.Contains(msg, "before you edit it") {
		t.Fatal(msg)
	}
}

func TestMultiEditNeedsEdits(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "x\n")
	h.readWhole("a.txt")
	for _, args := range []map[string]any{
		{"path": "a.txt", "edits": []any{}},
		{"path": "a.txt", "edits": nil},
		{"path": "a.txt", "edits": []map[string]any{{"old": "x", "new_string": "y"}}},
	} {
		if msg := h.fail("multi_edit", args); !strings.Contains(msg, "invalid arguments") {
			t.Errorf("%v: %s", args, msg)
		}
	}
}

func TestMultiEditReplaceAllPerEdit(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "k k\r\nv\r\n")
	h.readWhole("a.txt")
	h.ok("multi_edit", map[string]any{"path": "a.txt", "edits": []map[string]any{
		{"old_string": "k", "new_string": "key", "replace_all": true},
		{"old_string": "v\n", "new_string": "value\nmore\n"},
	}})
	if got := h.read("a.txt"); got != "key key\r\nvalue\r\nmore\r\n" {
		t.Fatalf("got %q", got)
	}
}
