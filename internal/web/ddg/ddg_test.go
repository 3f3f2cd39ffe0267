package ddg

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseResults(t *testing.T) {
	got, err := Parse(200, fixture(t, "results.html"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{"context package - context - Go Packages", "https://pkg.go.dev/context", "Package context defines the Context type, which carries deadlines, cancellation signals, and other request-scoped values across API boundaries and between processes."},
		{"Go Concurrency Patterns: Context - The Go Programming Language", "https://go.dev/blog/context", "In Go servers, each incoming request is handled in its own goroutine. Request handlers often start additional goroutines to access backends such as databases and RPC services."},
		{"How to cancel a context & stop goroutines? - Stack Overflow", "https://stackoverflow.com/questions/12345/how-to-cancel-a-context?tab=votes&page=2", "Call the cancel function returned by context.WithCancel; every goroutine that selects on ctx.Done() returns."},
		{"Go-Bücher", "https://bücher.example/go", "A snippet in a div, as some results have."},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestParseLite(t *testing.T) {
	got, err := Parse(200, fixture(t, "lite.html"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].URL != "https://pkg.go.dev/context" || got[0].Snippet != "Package context defines the Context type." || got[1].Title != "Go Concurrency Patterns: Context" {
		t.Fatalf("got %+v", got)
	}
}

func TestParseNoResults(t *testing.T) {
	got, err := Parse(200, fixture(t, "noresults.html"))
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want no results and no error", got, err)
	}
}

// Neither a rate-limit page nor a page in markup the parser does not know
// is ever "no results".
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   []byte
		want   error
	}{
		{"captcha page", 200, fixture(t, "captcha.html"), ErrRateLimited},
		{"HTTP 202", 202, []byte("<html><body></body></html>"), ErrRateLimited},
		{"changed markup", 200, fixture(t, "changed.html"), ErrUnreadable},
		{"empty page", 200, nil, ErrUnreadable},
		{"not HTML", 200, []byte(`{"results": []}`), ErrUnreadable},
	}
	for _, tt := range tests {
		got, err := Parse(tt.status, tt.body)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}

func TestNewRequest(t *testing.T) {
	req, err := NewRequest(context.Background(), Endpoint, "go & rust")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(req.Body)
	form, _ := url.ParseQuery(string(body))
	if req.Method != "POST" || req.URL.String() != Endpoint || form.Get("q") != "go & rust" || req.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("%s %s %q", req.Method, req.URL, body)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"results.html", "lite.html", "noresults.html", "changed.html"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		results, err := Parse(200, body)
		if err == nil && len(results) == 0 {
			return // a page that says it found nothing
		}
		for _, r := range results {
			u, perr := url.Parse(r.URL)
			if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || r.Title == "" {
				t.Fatalf("bad result %+v", r)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	page := fixture(b, "results.html")
	for i := 0; i < b.N; i++ {
		if _, err := Parse(200, page); err != nil {
			b.Fatal(err)
		}
	}
}
