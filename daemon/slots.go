package daemon

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/internal/tool"
)

// DefaultMaxCallsInFlight is how many calls run at once when initialize's
// settings.maxCallsInFlight names no other number; the settings declare it.
const DefaultMaxCallsInFlight = tool.DefaultMaxCallsInFlight

// MaxCallsInFlightLimit is the most settings.maxCallsInFlight may ask for.
const MaxCallsInFlightLimit = tool.MaxCallsInFlightLimit

const (
	// ParkedPerSlot is how many calls may wait for a slot, per slot, once
	// every slot is taken; and MaxParkedBytes how many bytes of requests
	// they may hold together. Past either, the reader stops reading until
	// a call ends: the client's writes then block, as on a full pipe.
	// Until then the reader goes on, so $/cancelRequest, shutdown and the
	// client's answers to the daemon's own questions still get through
	// while every slot is busy.
	ParkedPerSlot  = 4
	MaxParkedBytes = 16 << 20
	// workerIdle is how long a worker with nothing to do waits for the
	// next call before it ends. Reusing a worker reuses its grown stack.
	workerIdle = 10 * time.Second
)

// job is one call on its way: parked until a slot frees, then running.
type job struct {
	msg    *message
	m      method
	ctx    context.Context
	cancel context.CancelFunc
	parked bool
}

// jobKey finds a call's job in its context.
type jobKey struct{}

// slots admits calls: at most max run at once, up to ParkedPerSlot*max
// more wait in arrival order, and past that the reader waits. Its fields
// are guarded by the server's mutex.
type slots struct {
	max         int
	active      int                  // slots taken
	jobs        map[jsonrpc2.ID]*job // every call running or parked, by id
	parked      []*job
	parkedBytes int
	// waiting counts the running calls waiting for the client's answer
	// (an approval, a question, a model turn). When every running call
	// waits so, the reader must not wait for them: the answers are behind
	// it, in the input. It reads on, and refuses the calls it has no room
	// to park.
	waiting  int
	stopping bool
	room     sync.Cond // the reader waits here for room among the parked
	idle     chan *job // idle workers wait here for a call
	// running counts the goroutines running calls, on a worker or on the
	// reading goroutine, and the idle workers: stop waits for them. A
	// count is only added while serving goes on (checked under the mutex)
	// or while the adder holds a count of its own, so that no Add races
	// with stop's Wait.
	running sync.WaitGroup
}

func (sl *slots) init(mu *sync.Mutex, max int) {
	sl.max = max
	sl.jobs = map[jsonrpc2.ID]*job{}
	sl.room.L = mu
	sl.idle = make(chan *job)
}

func (sl *slots) full() bool {
	return len(sl.parked) >= ParkedPerSlot*sl.max || sl.parkedBytes >= MaxParkedBytes
}

// stalled says every running call waits for the client.
func (sl *slots) stalled() bool { return sl.waiting > 0 && sl.waiting >= sl.active }

// wake lets every waiter go on, serving is ending; the mutex is held.
func (sl *slots) wake() {
	sl.stopping = true
	sl.room.Broadcast()
}

// admit runs a call when a slot is free, and parks it otherwise. It runs
// on the read loop, and waits there while the parked calls are too many.
// It reports whether the reading moved to another goroutine (runInline).
func (s *server) admit(msg *message, m method, st *stream) (moved bool) {
	ctx, cancel := context.WithCancel(s.base)
	j := &job{msg: msg, m: m, cancel: cancel}
	j.ctx = withCallID(context.WithValue(ctx, jobKey{}, j), msg.id)
	sl := &s.slots
	s.mu.Lock()
	if s.stopping { // serving ended since call() looked
		s.mu.Unlock()
		cancel()
		return false
	}
	if _, busy := sl.jobs[msg.id]; busy {
		s.mu.Unlock()
		cancel()
		s.reply(msg, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest,
			"request id %v is already in use by a request that is still running; use a new id for every request", msg.id))
		return false
	}
	if sl.active < sl.max {
		sl.jobs[msg.id] = j
		sl.active++
		sl.running.Add(1)
		s.mu.Unlock()
		return s.runInline(j, st)
	}
	if sl.full() { // and stalled, or the reader would not be here
		running, parked := sl.active, len(sl.parked)
		s.mu.Unlock()
		cancel()
		s.reply(msg, nil, jsonrpc2.Errorf(codeRequestFailed,
			"Tether is busy: its %d running calls all wait for your answer (an approval or a question) and %d more wait to run; answer, or send %s again once calls have ended",
			running, parked, msg.method))
		return false
	}
	sl.jobs[msg.id] = j
	j.parked = true
	sl.parked = append(sl.parked, j)
	sl.parkedBytes += msg.size
	for sl.full() && !sl.stalled() && !sl.stopping {
		sl.room.Wait()
	}
	s.mu.Unlock()
	return false
}

// codeRequestFailed is LSP's RequestFailed: a well-formed request that
// could not be served.
const codeRequestFailed jsonrpc2.Code = -32803

// inlineFor is how long a call may run on the reading goroutine before
// the reading moves to another: a bound on how late $/cancelRequest,
// shutdown or the client's answers can be read while it runs.
const inlineFor = time.Millisecond

// runInline runs j on the reading goroutine: most calls end in well under
// inlineFor, and then nothing was handed to another goroutine, and no
// other thread was woken. If j runs longer, a timer starts a new reader
// and this goroutine, once j ends, passes its slot on and leaves the
// reading to it. (A call that computes without pause holds its
// processor: with one processor, as tether serve runs, the timer and the
// new reader run at the runtime's next preemption of it, within
// milliseconds.) It reports whether the reading moved.
func (s *server) runInline(j *job, st *stream) (moved bool) {
	const (
		inline = iota // j runs; this goroutine will read on
		handed        // the timer started another reader
		kept          // j ended first; this goroutine reads on
	)
	var state atomic.Int32
	timer := time.AfterFunc(inlineFor, func() {
		if state.CompareAndSwap(inline, handed) {
			go s.readLoop(st)
		}
	})
	defer s.slots.running.Done()
	s.runJob(j)
	moved = !timer.Stop() && !state.CompareAndSwap(inline, kept)
	s.mu.Lock()
	next := s.passSlot()
	s.mu.Unlock()
	if next != nil { // calls are waiting: a worker takes this slot's next
		s.startWorker(next)
	}
	return moved
}

// startWorker gives j to an idle worker, or to a new one. Its caller
// holds a count in running, so adding one here never races with stop.
func (s *server) startWorker(j *job) {
	select {
	case s.slots.idle <- j:
	default:
		s.slots.running.Add(1)
		go s.worker(j)
	}
}

// worker runs calls: j, then whatever the slot it holds goes to next,
// then, idle, whatever admit hands it.
func (s *server) worker(j *job) {
	defer s.slots.running.Done()
	var timer *time.Timer
	for {
		s.runJob(j)
		s.mu.Lock()
		j = s.passSlot()
		s.mu.Unlock()
		if j != nil {
			continue
		}
		if timer == nil {
			timer = time.NewTimer(workerIdle)
		} else {
			timer.Reset(workerIdle)
		}
		select {
		case j = <-s.slots.idle:
			timer.Stop()
		case <-timer.C:
			return
		case <-s.base.Done():
			return
		}
	}
}

// passSlot gives the slot of a call that ended to the oldest parked
// call, which it returns for the caller to run; or frees it. The mutex is
// held.
func (s *server) passSlot() *job {
	sl := &s.slots
	if len(sl.parked) == 0 {
		sl.active--
		return nil
	}
	j := sl.parked[0]
	sl.parked[0] = nil
	sl.parked = sl.parked[1:]
	sl.parkedBytes -= j.msg.size
	j.parked = false
	sl.room.Signal()
	return j
}

func (s *server) runJob(j *job) {
	start := time.Now()
	res, err := s.run(j.ctx, j.msg.method, j.m, j.msg.params)
	s.mu.Lock()
	delete(s.slots.jobs, j.msg.id) // before replying, so the id is free when the client sees the reply
	s.mu.Unlock()
	j.cancel()
	if s.logger.Enabled(j.ctx, slog.LevelDebug) {
		s.logger.Debug("call", "method", j.msg.method, "id", j.msg.id, "took", time.Since(start), "err", err)
	}
	s.reply(j.msg, res, err)
}

// awaitClient marks the call ctx belongs to as waiting for the client,
// until the returned function is called.
func (s *server) awaitClient(ctx context.Context) func() {
	j, _ := ctx.Value(jobKey{}).(*job)
	if j == nil {
		return func() {}
	}
	sl := &s.slots
	s.mu.Lock()
	sl.waiting++
	if sl.stalled() {
		sl.room.Signal() // the reader must read on: the answers are behind it
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		sl.waiting--
		s.mu.Unlock()
	}
}

// cancelJob handles $/cancelRequest for id: a running call's context is
// cancelled, which stops its tool and the tool's processes, and the call
// still replies; a parked call is dropped and answered at once.
func (s *server) cancelJob(id jsonrpc2.ID) {
	sl := &s.slots
	s.mu.Lock()
	j := sl.jobs[id]
	if j == nil {
		s.mu.Unlock()
		s.logger.Debug("cancel for a request that is not running", "id", id)
		return
	}
	if !j.parked {
		s.mu.Unlock()
		s.logger.Debug("cancelling", "id", id)
		j.cancel()
		return
	}
	if i := slices.Index(sl.parked, j); i >= 0 {
		sl.parked = slices.Delete(sl.parked, i, i+1)
	}
	sl.parkedBytes -= j.msg.size
	delete(sl.jobs, id)
	s.mu.Unlock()
	j.cancel()
	s.reply(j.msg, nil, jsonrpc2.NewError(lsp.CodeRequestCancelled, j.msg.method+" was cancelled before it started; nothing was done"))
}
