package diagnostics

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	lsp "go.lsp.dev/protocol"
)

func diag(sev lsp.DiagnosticSeverity, line, col uint32, msg string) lsp.Diagnostic {
	return lsp.Diagnostic{Severity: sev, Message: msg, Source: "go", Range: lsp.Range{Start: lsp.Position{Line: line, Character: col}}}
}

func TestPublishReplacesPerFile(t *testing.T) {
	s := NewStore()
	s.Publish("/w/a.go", []lsp.Diagnostic{diag(1, 0, 0, "x"), diag(2, 1, 0, "y")})
	s.Publish("/w/a.go", []lsp.Diagnostic{diag(2, 3, 0, "z")})
	got, seq := s.File("/w/a.go")
	if len(got) != 1 || got[0].Message != "z" || seq != 2 {
		t.Fatalf("got %v seq %d", got, seq)
	}
	s.Publish("/w/a.go", nil)
	if len(s.All()) != 0 {
		t.Fatal("an empty publish must clear the file")
	}
}

func TestStoreIsBounded(t *testing.T) {
	s := NewStore()
	many := make([]lsp.Diagnostic, MaxPerFile+100)
	for i := range many {
		many[i] = diag(2, uint32(i), 0, strings.Repeat("m", MaxMessageSize+10))
	}
	many[len(many)-1].Severity = lsp.DiagnosticSeverityError
	s.Publish("/w/a.go", many)
	got, _ := s.File("/w/a.go")
	if len(got) != MaxPerFile || got[0].Severity != lsp.DiagnosticSeverityError || len(got[0].Message) > MaxMessageSize+len("…") {
		t.Fatalf("per-file bound: %d diagnostics, first severity %v, message %d bytes", len(got), got[0].Severity, len(got[0].Message))
	}
	for i := 0; i < MaxFiles+10; i++ {
		s.Publish(fmt.Sprintf("/w/f%d.go", i), []lsp.Diagnostic{diag(1, 0, 0, "e")})
	}
	if n := len(s.All()); n > MaxFiles {
		t.Fatalf("%d files kept, limit %d", n, MaxFiles)
	}
	if d, _ := s.File("/w/f0.go"); d != nil {
		t.Fatal("the oldest file should have been evicted")
	}
}

func TestConcurrentPublish(t *testing.T) {
	s := NewStore()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				s.Publish(fmt.Sprintf("/w/%d.go", i%10), []lsp.Diagnostic{diag(1, uint32(g), 0, "e")})
				s.All()
			}
		}(g)
	}
	wg.Wait()
	if s.Seq() != 1600 {
		t.Fatalf("seq = %d, want 1600", s.Seq())
	}
}

func TestWaitFresh(t *testing.T) {
	s := NewStore()
	s.Publish("/w/a.go", []lsp.Diagnostic{diag(1, 0, 0, "old")})
	after := s.Seq()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go func() {
		time.Sleep(10 * time.Millisecond)
		s.Publish("/w/b.go", nil) // another file: not what we wait for
		s.Publish("/w/a.go", []lsp.Diagnostic{diag(1, 0, 0, "new")})
	}()
	got := s.WaitFresh(ctx, after, []string{"/w/a.go"})
	if len(got["/w/a.go"]) != 1 || got["/w/a.go"][0].Message != "new" {
		t.Fatalf("got %v", got)
	}
	// Nothing fresh: returns empty when the context ends.
	short, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if got := s.WaitFresh(short, s.Seq(), []string{"/w/a.go"}); len(got) != 0 {
		t.Fatalf("stale publish reported as fresh: %v", got)
	}
}

func TestFormat(t *testing.T) {
	ps := []Problem{
		{Path: "b.go", Diagnostic: diag(2, 4, 1, "unused  x")},
		{Path: "a.go", Diagnostic: lsp.Diagnostic{Severity: 1, Message: "undefined: y", Source: "compiler", Code: "UndeclaredName", Range: lsp.Range{Start: lsp.Position{Line: 9, Character: 2}}}},
	}
	got := Format(ps, 10000)
	want := "a.go:10:3: error: undefined: y [compiler UndeclaredName]\nb.go:5:2: warning: unused x [go]\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	var lots []Problem
	for i := 0; i < 1000; i++ {
		lots = append(lots, Problem{Path: "c.go", Diagnostic: diag(1, uint32(i), 0, "bad thing here")})
	}
	out := Format(lots, 2000)
	if len(out) > 2000 || !strings.Contains(out, "more problems not shown") {
		t.Fatalf("cap: %d bytes, tail %q", len(out), out[len(out)-80:])
	}
}

func TestIntroduced(t *testing.T) {
	before := []lsp.Diagnostic{diag(1, 3, 0, "unused x"), diag(2, 5, 0, "shadow")}
	after := []lsp.Diagnostic{diag(1, 4, 0, "unused x"), diag(1, 8, 0, "unused x"), diag(1, 9, 0, "undefined: z")}
	got := Introduced(before, after)
	if len(got) != 2 || got[0].Message != "unused x" || got[1].Message != "undefined: z" {
		t.Fatalf("got %v", got)
	}
}

func TestParseSeverity(t *testing.T) {
	if s, err := ParseSeverity("warning"); err != nil || s != lsp.DiagnosticSeverityWarning {
		t.Fatal(s, err)
	}
	if _, err := ParseSeverity("fatal"); err == nil || !strings.Contains(err.Error(), "error, warning, info or hint") {
		t.Fatal(err)
	}
}
