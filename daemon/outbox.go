package daemon

import (
	"errors"
	"io"
	"slices"
	"sync"
)

// MaxQueuedOutput bounds the bytes of frames waiting for stdout. A client
// that stops reading makes the goroutines with more to send wait here;
// the calls they belong to keep their slots, so the reader soon waits too
// and the client's own writes block: the back-pressure a pipe gives,
// carried through, with the daemon's memory bounded all the while.
const MaxQueuedOutput = 4 << 20

// outbox queues frames for the output and writes them in order, each whole
// in one write, so frames of concurrent calls never interleave. Whoever
// queues a frame while nobody is writing writes it (and any queued
// meanwhile) itself: a reply usually leaves on the goroutine that made it,
// without a hand-off to another.
type outbox struct {
	w   io.Writer
	max int

	mu      sync.Mutex
	room    sync.Cond // signalled when bytes leave the queue or the outbox closes
	queue   []*frame  // waiting frames, urgent ones first
	urgent  int       // how many of queue's first frames are urgent
	held    int       // bytes queued or being written
	writing bool
	closed  bool
	err     error // the first write error; every later send fails with it
}

func newOutbox(w io.Writer, max int) *outbox {
	o := &outbox{w: w, max: max}
	o.room.L = &o.mu
	return o
}

var errClosed = errors.New("the connection is closed")

// send queues f, which it owns from now on. It waits while the frames
// already waiting hold max bytes, unless f is urgent: an urgent frame (the
// reply to shutdown) goes ahead of every other waiting frame and never
// waits for room. A frame larger than max is let through when nothing
// else waits, or it could never go.
func (o *outbox) send(f *frame, urgent bool) error {
	n := len(f.bytes())
	o.mu.Lock()
	for !urgent && o.held > 0 && o.held+n > o.max && !o.closed && o.err == nil {
		o.room.Wait()
	}
	if o.closed || o.err != nil {
		err := o.err
		o.mu.Unlock()
		f.release()
		if err == nil {
			err = errClosed
		}
		return err
	}
	if urgent {
		o.queue = slices.Insert(o.queue, o.urgent, f)
		o.urgent++
	} else {
		o.queue = append(o.queue, f)
	}
	o.held += n
	if o.writing {
		o.mu.Unlock()
		return nil
	}
	o.writing = true
	for len(o.queue) > 0 && !o.closed && o.err == nil {
		next := o.queue[0]
		o.queue[0] = nil
		o.queue = o.queue[1:]
		if o.urgent > 0 {
			o.urgent--
		}
		o.mu.Unlock()
		b := next.bytes()
		_, err := o.w.Write(b)
		next.release()
		o.mu.Lock()
		o.held -= len(b)
		if err != nil && o.err == nil {
			o.err = err
		}
		o.room.Broadcast()
	}
	if o.closed || o.err != nil {
		o.dropQueue()
	}
	o.writing = false
	err := o.err
	o.mu.Unlock()
	return err
}

// dropQueue forgets the waiting frames; o.mu is held.
func (o *outbox) dropQueue() {
	for _, f := range o.queue {
		o.held -= len(f.bytes())
		f.release()
	}
	o.queue, o.urgent = nil, 0
	o.room.Broadcast()
}

// close makes every later send fail and wakes the senders waiting for
// room; a frame being written finishes.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	if !o.writing {
		o.dropQueue()
	}
	o.room.Broadcast()
	o.mu.Unlock()
}
