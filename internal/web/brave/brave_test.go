package brave

import (
	"context"
	"errors"
	"testing"
)

const answerJSON = `{
  "type": "search",
  "query": {"original": "go context"},
  "web": {
    "type": "search",
    "results": [
      {"title": "context package - <strong>context</strong> - Go Packages", "url": "https://pkg.go.dev/context",
       "description": "Package <strong>context</strong> defines the Context type &amp; more.", "language": "en"},
      {"title": "Not a page", "url": "javascript:alert(1)", "description": "dropped"},
      {"title": "Go Concurrency Patterns: Context", "url": "https://go.dev/blog/context", "description": ""}
    ]
  }
}`

func TestParse(t *testing.T) {
	got, err := Parse(200, []byte(answerJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{"context package - context - Go Packages", "https://pkg.go.dev/context", "Package context defines the Context type & more."},
		{"Go Concurrency Patterns: Context", "https://go.dev/blog/context", ""},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v", got)
	}
	if got, err := Parse(200, []byte(`{"web":{"results":[]}}`)); err != nil || len(got) != 0 {
		t.Fatalf("no results: %v, %v", got, err)
	}
}

func TestParseErrors(t *testing.T) {
	for status, want := range map[int]error{429: ErrRateLimited, 401: ErrKeyRefused, 403: ErrKeyRefused} {
		if _, err := Parse(status, nil); !errors.Is(err, want) {
			t.Errorf("HTTP %d: %v", status, err)
		}
	}
	if _, err := Parse(500, nil); err == nil {
		t.Error("HTTP 500 is not an error")
	}
	if _, err := Parse(200, []byte("<html>")); err == nil {
		t.Error("a page that is not JSON is not an error")
	}
}

func TestNewRequest(t *testing.T) {
	req, err := NewRequest(context.Background(), Endpoint, "k3y", "go & rust", 7)
	if err != nil {
		t.Fatal(err)
	}
	if req.URL.Query().Get("q") != "go & rust" || req.URL.Query().Get("count") != "7" || req.Header.Get("X-Subscription-Token") != "k3y" {
		t.Fatalf("%s %v", req.URL, req.Header)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(answerJSON))
	f.Fuzz(func(t *testing.T, body []byte) {
		results, _ := Parse(200, body)
		for _, r := range results {
			if r.URL == "" {
				t.Fatalf("result without URL: %+v", r)
			}
		}
	})
}
