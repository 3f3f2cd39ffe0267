// Package cache is a small in-memory cache bounded by age and by size:
// entries expire after a fixed time to live, and when the entries together
// weigh more than the bound, the least recently used go first. It is safe
// for concurrent use.
package cache

import (
	"container/list"
	"sync"
	"time"
)

// LRU maps keys to values that expire after TTL, keeping at most MaxBytes
// of them by the weight the size function gives each value.
type LRU[K comparable, V any] struct {
	mu       sync.Mutex
	maxBytes int64
	ttl      time.Duration
	size     func(V) int64
	now      func() time.Time

	bytes int64
	order *list.List // front: most recently used
	items map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key     K
	value   V
	size    int64
	expires time.Time
}

// New makes a cache of at most maxBytes (as weighed by size) whose entries
// live for ttl.
func New[K comparable, V any](maxBytes int64, ttl time.Duration, size func(V) int64) *LRU[K, V] {
	return &LRU[K, V]{maxBytes: maxBytes, ttl: ttl, size: size, now: time.Now, order: list.New(), items: map[K]*list.Element{}}
}

// SetClock replaces the clock (for tests).
func (c *LRU[K, V]) SetClock(now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

// Get returns the value under key, unless it is missing or has expired.
func (c *LRU[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.items[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if !c.now().Before(e.expires) {
		c.remove(el)
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.value, true
}

// Put stores value under key, replacing what was there, and evicts the
// least recently used entries until the cache fits its bound again. A
// value heavier than the whole bound is not stored.
func (c *LRU[K, V]) Put(key K, value V) {
	n := c.size(value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
	if n > c.maxBytes {
		return
	}
	e := &entry[K, V]{key: key, value: value, size: n, expires: c.now().Add(c.ttl)}
	c.items[key] = c.order.PushFront(e)
	c.bytes += n
	for c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
	c.dropExpired()
}

// dropExpired removes expired entries from the cold end, so a cache that
// is written but rarely read does not hold dead pages until they are
// pushed out.
func (c *LRU[K, V]) dropExpired() {
	now := c.now()
	for el := c.order.Back(); el != nil; {
		prev := el.Prev()
		if !now.Before(el.Value.(*entry[K, V]).expires) {
			c.remove(el)
		}
		el = prev
	}
}

func (c *LRU[K, V]) remove(el *list.Element) {
	e := el.Value.(*entry[K, V])
	c.order.Remove(el)
	delete(c.items, e.key)
	c.bytes -= e.size
}

// Len is the number of entries held (expired ones included until they are
// next looked at).
func (c *LRU[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Bytes is the total weight of the entries held.
func (c *LRU[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
