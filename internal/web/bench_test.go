package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/web/webtest"
)

// BenchmarkFetch compares a plain net/http GET of a 16 KB text page from a
// local server with Client.Fetch of the same page (checks, guard, body cap,
// decoding, cache write), each call a fresh URL. Target: under 1.5x.
func BenchmarkFetch(b *testing.B) {
	text := strings.Repeat("A line of plain text, sixty-four bytes long, for the benchmark.\n", 256)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, text)
	}))
	defer srv.Close()
	b.Run("net-http", func(b *testing.B) {
		plain := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		defer plain.CloseIdleConnections()
		for i := 0; i < b.N; i++ {
			resp, err := plain.Get(fmt.Sprintf("%s/?n=%d", srv.URL, i))
			if err != nil {
				b.Fatal(err)
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("client", func(b *testing.B) {
		cfg, _ := NewConfig(Settings{PrivateHosts: []string{"127.0.0.1"}})
		c := New(cfg)
		defer c.Close()
		for i := 0; i < b.N; i++ {
			t, err := c.Check(fmt.Sprintf("%s/?n=%d", srv.URL, i))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Fetch(context.Background(), t, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCachedPage serves a converted 200 KB article from the cache and
// takes its first 80 KB window. Target: under 1 ms.
func BenchmarkCachedPage(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, webtest.Article(200<<10))
	}))
	defer srv.Close()
	cfg, _ := NewConfig(Settings{PrivateHosts: []string{"127.0.0.1"}})
	c := New(cfg)
	defer c.Close()
	t, _ := c.Check(srv.URL + "/article")
	if _, err := c.Fetch(context.Background(), t, false); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, ok := c.Cached(t, false)
		if !ok {
			b.Fatal("not cached")
		}
		p.Window(0, p.Chars, 80<<10)
	}
}
