package tools

import (
	"path/filepath"
	"strings"
	"testing"

	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/protocol"
)

func withDiagnostics(h *harness) *diagnostics.Store {
	st := diagnostics.NewStore()
	h.env.Diagnostics = st
	h.env.Capabilities.Diagnostics = true
	return st
}

func TestProblemsOfferedOnlyWithDiagnostics(t *testing.T) {
	h := newHarness(t)
	if msg := h.fail("problems", map[string]any{}); !strings.Contains(msg, "not available") {
		t.Fatal(msg)
	}
	for _, info := range h.reg.Offered(h.env) {
		if info.Name == "problems" {
			t.Fatal("problems offered without the diagnostics capability")
		}
	}
	withDiagnostics(h)
	found := false
	for _, info := range h.reg.Offered(h.env) {
		found = found || info.Name == "problems"
	}
	if !found {
		t.Fatal("problems not offered with the diagnostics capability")
	}
}

func TestProblemsFormatsAndFilters(t *testing.T) {
	h := newHarness(t)
	st := withDiagnostics(h)
	if got := h.ok("problems", map[string]any{}); !strings.Contains(got, "No problems") || !strings.Contains(got, "not published any diagnostics yet") {
		t.Fatalf("empty store: %q", got)
	}
	st.Publish(filepath.Join(h.dir, "pkg", "a.go"), []lsp.Diagnostic{
		{Severity: lsp.DiagnosticSeverityWarning, Message: "x declared and not used", Source: "go", Range: lsp.Range{Start: lsp.Position{Line: 2, Character: 1}}},
		{Severity: lsp.DiagnosticSeverityError, Message: "undefined: y", Source: "compiler", Code: "UndeclaredName", Range: lsp.Range{Start: lsp.Position{Line: 6, Character: 4}}},
	})
	st.Publish(filepath.Join(h.dir, "b.go"), []lsp.Diagnostic{{Severity: lsp.DiagnosticSeverityHint, Message: "could be simpler"}})
	got := h.ok("problems", map[string]any{})
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if lines[0] != "pkg/a.go:7:5: error: undefined: y [compiler UndeclaredName]" || lines[1] != "pkg/a.go:3:2: warning: x declared and not used [go]" || !strings.HasPrefix(lines[2], "b.go:1:1: hint:") {
		t.Fatalf("got:\n%s", got)
	}
	if !strings.Contains(got, "may still be analysing") {
		t.Fatalf("a publish just now should say diagnostics may still be coming: %q", got)
	}
	if got := h.ok("problems", map[string]any{"severity": "error"}); strings.Contains(got, "warning") || !strings.Contains(got, "undefined: y") {
		t.Fatalf("severity filter: %q", got)
	}
	if got := h.ok("problems", map[string]any{"path": "b.go"}); strings.Contains(got, "pkg/a.go") || !strings.Contains(got, "b.go:1:1") {
		t.Fatalf("path filter: %q", got)
	}
	if got := h.ok("problems", map[string]any{"path": "pkg"}); !strings.Contains(got, "pkg/a.go") || strings.Contains(got, "b.go:1") {
		t.Fatalf("folder filter: %q", got)
	}
	if msg := h.fail("problems", map[string]any{"severity": "fatal"}); !strings.Contains(msg, "severity") {
		t.Fatal(msg)
	}
}

func TestTodoReplacesPlanAndNotifies(t *testing.T) {
	h := newHarness(t)
	h.env.Capabilities.Todo = true
	got := h.ok("todo", map[string]any{"items": []map[string]string{
		{"text": "read the code", "status": "done"},
		{"text": "write the fix", "status": "in_progress"},
		{"text": "run the tests", "status": "pending"},
	}})
	want := "Plan (1 of 3 done):\n[x] read the code\n[>] write the fix\n[ ] run the tests\n"
	if got != want {
		t.Fatalf("got %q", got)
	}
	if len(h.host.plans) != 1 || len(h.host.plans[0]) != 3 {
		t.Fatalf("plans shown: %+v", h.host.plans)
	}
	if p := h.sess.Plan(); len(p) != 3 || p[1].Status != "in_progress" {
		t.Fatalf("session plan: %+v", p)
	}
	h.ok("todo", map[string]any{"items": []map[string]string{{"text": "only step", "status": "pending"}}})
	if p := h.sess.Plan(); len(p) != 1 {
		t.Fatalf("plan not replaced: %+v", p)
	}
}

func TestTodoRejectsBadPlans(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		items []map[string]string
		want  string
	}{
		{[]map[string]string{{"text": "a", "status": "in_progress"}, {"text": "b", "status": "in_progress"}}, "exactly one in progress"},
		{[]map[string]string{{"text": "a", "status": "started"}}, "status"},
		{[]map[string]string{{"text": "   ", "status": "pending"}}, "no text"},
	} {
		if msg := h.fail("todo", map[string]any{"items": tc.items}); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %s (want %q)", tc.items, msg, tc.want)
		}
	}
	if len(h.host.plans) != 0 {
		t.Fatal("a refused plan must not be sent to the client")
	}
}

func TestAskUser(t *testing.T) {
	h := newHarness(t)
	if msg := h.fail("ask_user", map[string]any{"question": "Which?", "options": []string{"a", "b"}}); !strings.Contains(msg, "not available") {
		t.Fatalf("without the askUser capability: %s", msg)
	}
	h.env.Capabilities.AskUser = true
	h.host.askAnswer = protocol.UserAskResult{Answer: "b"}
	if got := h.ok("ask_user", map[string]any{"question": "Which?", "options": []string{"a", "b"}}); got != "The user chose: b" {
		t.Fatal(got)
	}
	q := h.host.questions[0]
	if q.Question != "Which?" || len(q.Options) != 2 || q.AllowFreeText {
		t.Fatalf("question sent: %+v", q)
	}
	h.host.askAnswer = protocol.UserAskResult{Answer: "neither, use c"}
	if got := h.ok("ask_user", map[string]any{"question": "Which one?", "options": []string{"a", "b"}, "allow_free_text": true}); !strings.Contains(got, "own words: neither, use c") {
		t.Fatal(got)
	}
	h.host.askAnswer = protocol.UserAskResult{Cancelled: true}
	if got := h.ok("ask_user", map[string]any{"question": "Really?", "options": []string{"yes", "no"}}); !strings.Contains(got, "did not answer") {
		t.Fatal(got)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"question": "Q", "options": []string{"only"}}, "options must be a list of strings, 2 to 9 of them; it had 1"},
		{map[string]any{"question": "Q", "options": []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}}, "options must be a list of strings, 2 to 9 of them; it had 10"},
		{map[string]any{"question": "", "options": []string{"a", "b"}}, "question"},
		{map[string]any{"question": "Q", "options": []string{"a", "A"}}, "twice"},
		{map[string]any{"question": "Q", "options": []string{"a", " "}}, "empty"},
	} {
		if msg := h.fail("ask_user", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %s (want %q)", tc.args, msg, tc.want)
		}
	}
}

func TestNullListIsRefused(t *testing.T) {
	h := newHarness(t)
	h.env.Capabilities.AskUser = true
	if msg := h.fail("ask_user", map[string]any{"question": "Q", "options": nil}); !strings.Contains(msg, "options") {
		t.Fatal(msg)
	}
	if msg := h.fail("todo", map[string]any{"items": nil}); !strings.Contains(msg, "items") {
		t.Fatal(msg)
	}
}
