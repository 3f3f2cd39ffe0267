package shell

import (
	"os"
	"sync"
)

// MaxLogBytes caps one background job's log. A job that prints without end
// (a chatty server, a runaway loop) must not fill the disk; past the cap its
// output is counted and dropped, and the job keeps running.
const MaxLogBytes = 64 << 20

// jobLog is a background job's output file. Its size is tracked here
// rather than asked of the file system, so a reader never sees a write
// half done.
type jobLog struct {
	mu      sync.Mutex
	f       *os.File
	written int64
	dropped int64
	limit   int64
}

func createJobLog(path string) (*jobLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return &jobLog{f: f, limit: MaxLogBytes}, nil
}

// Write appends p, up to the cap. It never fails: a failing sink would
// stop the reader and block the job on a full pipe.
func (l *jobLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	if l.f == nil {
		l.dropped += int64(n)
		return n, nil
	}
	room := l.limit - l.written
	if int64(len(p)) > room {
		l.dropped += int64(len(p)) - max(room, 0)
		p = p[:max(room, 0)]
	}
	if len(p) > 0 {
		w, err := l.f.Write(p)
		l.written += int64(w)
		if err != nil {
			l.dropped += int64(len(p) - w)
		}
	}
	return n, nil
}

// size reports how much is in the file and how much was dropped.
func (l *jobLog) size() (written, dropped int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written, l.dropped
}

func (l *jobLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
