package cache

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func strSize(s string) int64 { return int64(len(s)) }

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTest(max int64, ttl time.Duration) (*LRU[string, string], *clock) {
	c := New[string, string](max, ttl, strSize)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	c.SetClock(clk.now)
	return c, clk
}

func TestEntriesExpire(t *testing.T) {
	c, clk := newTest(100, 15*time.Minute)
	c.Put("a", "page")
	clk.t = clk.t.Add(15*time.Minute - time.Nanosecond)
	if v, ok := c.Get("a"); !ok || v != "page" {
		t.Fatalf("Get before expiry = %q, %v", v, ok)
	}
	clk.t = clk.t.Add(time.Nanosecond)
	if _, ok := c.Get("a"); ok {
		t.Fatal("an entry outlived its time to live")
	}
	if c.Len() != 0 || c.Bytes() != 0 {
		t.Fatalf("expired entry still held: %d entries, %d bytes", c.Len(), c.Bytes())
	}
}

// A read does not extend an entry's life: a page is refetched at the
// latest its time to live after it was fetched.
func TestReadsDoNotExtendLife(t *testing.T) {
	c, clk := newTest(100, time.Minute)
	c.Put("a", "x")
	for i := 0; i < 5; i++ {
		clk.t = clk.t.Add(15 * time.Second)
		c.Get("a")
	}
	if _, ok := c.Get("a"); ok {
		t.Fatal("reads kept an entry alive past its time to live")
	}
}

func TestSizeBoundEvictsLeastRecentlyUsed(t *testing.T) {
	c, _ := newTest(10, time.Hour)
	c.Put("a", "aaaa")
	c.Put("b", "bbbb")
	c.Get("a") // b is now the least recently used
	c.Put("c", "cccc")
	if _, ok := c.Get("b"); ok {
		t.Error("the least recently used entry was kept")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	if c.Bytes() != 8 {
		t.Errorf("Bytes = %d, want 8", c.Bytes())
	}
}

func TestReplaceAndOversize(t *testing.T) {
	c, _ := newTest(10, time.Hour)
	c.Put("a", "aaaa")
	c.Put("a", "aa")
	if v, _ := c.Get("a"); v != "aa" || c.Bytes() != 2 || c.Len() != 1 {
		t.Fatalf("after replace: %q, %d bytes, %d entries", v, c.Bytes(), c.Len())
	}
	c.Put("big", "01234567890")
	if _, ok := c.Get("big"); ok {
		t.Error("a value over the whole bound was stored")
	}
	if _, ok := c.Get("a"); !ok {
		t.Error("an oversize value pushed out what fits")
	}
	// Replacing a key with an oversize value drops the old one: a stale
	// page must not be served in place of the new one.
	c.Put("a", "01234567890")
	if _, ok := c.Get("a"); ok {
		t.Error("the old value survived an oversize replacement")
	}
}

func TestPutDropsExpiredEntries(t *testing.T) {
	c, clk := newTest(100, time.Minute)
	c.Put("old", "x")
	clk.t = clk.t.Add(2 * time.Minute)
	c.Put("new", "y")
	if c.Len() != 1 {
		t.Fatalf("Len = %d: an expired entry is still held", c.Len())
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New[string, string](1000, time.Minute, strSize)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				k := fmt.Sprint(i % 37)
				c.Put(k, fmt.Sprint(g, i))
				c.Get(k)
			}
		}(g)
	}
	wg.Wait()
	if c.Bytes() > 1000 {
		t.Fatalf("Bytes = %d over the bound", c.Bytes())
	}
}

func BenchmarkGet(b *testing.B) {
	c := New[string, string](50<<20, time.Hour, strSize)
	for i := 0; i < 1000; i++ {
		c.Put(fmt.Sprint("https://example.com/", i), "page")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Get("https://example.com/500")
	}
}
