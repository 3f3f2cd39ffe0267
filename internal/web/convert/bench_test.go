package convert

import (
	"context"
	"net/url"
	"testing"

	"github.com/tether-dev/tether/internal/web/webtest"
)

// BenchmarkArticle200KB converts a 200 KB article page to Markdown: parse,
// readability, Markdown. Target: under 50 ms.
func BenchmarkArticle200KB(b *testing.B) {
	page := webtest.Article(200 << 10)
	u, _ := url.Parse("https://docs.example/cache")
	b.SetBytes(int64(len(page)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Markdown(context.Background(), page, u); err != nil {
			b.Fatal(err)
		}
	}
}
