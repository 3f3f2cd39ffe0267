package memory

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// benchWords make up the memories' text: common words, so that a query
// matches many memories and ranking and excerpts do real work.
var benchWords = strings.Fields("the build cache release deploy keys test runner flaky network proxy config database migration index schema user prefers tabs spaces review branch merge commit lint format docs api token rate limit retry timeout queue worker")

// fillStore writes n memories of about size bytes each.
func fillStore(b *testing.B, n, size int) *Store {
	b.Helper()
	s := Open(b.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		var body strings.Builder
		for body.Len() < size-200 {
			for w := 0; w < 12; w++ {
				body.WriteString(benchWords[r.IntN(len(benchWords))])
				body.WriteByte(' ')
			}
			body.WriteString("\n")
		}
		p := Page{Meta: Meta{
			Description: "memory " + fmt.Sprint(i) + " about " + benchWords[i%len(benchWords)],
			Type:        TypeProject,
			Keywords:    []string{benchWords[(i+3)%len(benchWords)], benchWords[(i+7)%len(benchWords)]},
			Created:     t0, Updated: t0.Add(time.Duration(i) * time.Minute), Source: "request bench",
		}, Body: body.String()}
		writeFile(b, s.Path(fmt.Sprintf("memory-%04d", i)), string(Render(p)))
	}
	return s
}

// BenchmarkSearch is a search over 1,000 memories of 4 KB, with the
// files cached from an earlier search (each is still checked on disk).
func BenchmarkSearch(b *testing.B) {
	s := fillStore(b, 1000, 4<<10)
	for _, q := range []string{"flaky network", "cache", "no-such-word"} {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			if _, err := s.List(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				ms, err := s.List()
				if err != nil {
					b.Fatal(err)
				}
				Search(ms, q, MaxHits, MaxExcerptLines)
			}
		})
	}
}

// BenchmarkSearchCold reads and parses every file, as the first search after
// the daemon starts does.
func BenchmarkSearchCold(b *testing.B) {
	s := fillStore(b, 1000, 4<<10)
	for b.Loop() {
		cold := Open(s.Dir())
		ms, err := cold.List()
		if err != nil {
			b.Fatal(err)
		}
		Search(ms, "flaky network", MaxHits, MaxExcerptLines)
		cold.Close()
	}
}

// BenchmarkSearchInMemory is the search alone, over memories already read.
func BenchmarkSearchInMemory(b *testing.B) {
	s := fillStore(b, 1000, 4<<10)
	ms, err := s.List()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"flaky network", "cache", "the", "no-such-word"} {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				Search(ms, q, MaxHits, MaxExcerptLines)
			}
		})
	}
}
