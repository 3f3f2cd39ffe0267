package shell

import (
	"bytes"
	"fmt"
	"sync"
)

// Capture keeps the start and the end of a command's output in bounded
// memory, whatever the command prints: the head shows what the command was
// doing, the tail keeps the last error of a failing build. The middle is
// only counted.
type Capture struct {
	mu      sync.Mutex
	headMax int
	tailMax int
	head    []byte
	// tail holds up to 2*tailMax bytes; the last tailMax of them are the
	// tail. Compacting only when it is full keeps every write amortised O(n).
	tail   []byte
	total  int64
	lines  int64
	binary bool
}

// NewCapture keeps at most max bytes: two fifths from the start, the rest
// from the end, because the end is where a failure explains itself.
func NewCapture(max int) *Capture {
	if max < 64 {
		max = 64
	}
	head := max * 2 / 5
	return &Capture{headMax: head, tailMax: max - head}
}

// Write records p. It never fails, so a command's output can never make the
// runner stop reading (which would block the command on a full pipe).
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if !c.binary && bytes.IndexByte(p, 0) >= 0 {
		c.binary = true
	}
	if room := c.headMax - len(c.head); room > 0 {
		take := min(room, len(p))
		c.head = append(c.head, p[:take]...)
		p = p[take:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(p) >= c.tailMax {
		c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
		return n, nil
	}
	if len(c.tail)+len(p) > 2*c.tailMax {
		keep := c.tail[len(c.tail)-(c.tailMax-len(p)):]
		c.tail = append(c.tail[:0], keep...)
	}
	c.tail = append(c.tail, p...)
	return n, nil
}

// Total is how many bytes were written.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Binary reports whether the output held a NUL byte: text never does.
func (c *Capture) Binary() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.binary
}

// Truncated reports whether some of the output was dropped.
func (c *Capture) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(len(c.head)+c.tailLen())
}

func (c *Capture) tailLen() int { return min(len(c.tail), c.tailMax) }

// String returns the output, or its head and tail joined by a marker that
// says how many lines and bytes were left out. Cuts fall on line
// boundaries where one is near, so no half line is shown.
func (c *Capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.tail[len(c.tail)-c.tailLen():]
	if c.total <= int64(len(c.head)+len(tail)) {
		return string(c.head) + string(tail)
	}
	head := c.head
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	omitted := c.total - int64(len(head)) - int64(len(tail))
	omittedLines := c.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b bytes.Buffer
	b.Grow(len(head) + len(tail) + 80)
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "… [%d lines, %d bytes omitted from the middle of the output] …\n", omittedLines, omitted)
	b.Write(tail)
	return b.String()
}
