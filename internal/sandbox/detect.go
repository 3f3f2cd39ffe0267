package sandbox

import (
	"context"
	"sync"
	"time"
)

// probeTimeout bounds the probe: on a machine where mounting hangs (a
// dead network file system under /) the sandbox is given up rather than
// every command kept waiting.
const probeTimeout = 20 * time.Second

var detection struct {
	once sync.Once
	done chan struct{}
	st   Status
}

// StartDetect starts finding this machine's level in the background,
// once per process; the first command that needs the answer waits for
// what is left of it (Detected). The answer is kept for the life of the
// process. Nothing starts it before something may run a command: a
// session that runs none pays nothing for it.
func StartDetect() {
	detection.once.Do(func() {
		detection.done = make(chan struct{})
		go func() {
			defer close(detection.done)
			DefaultLayout()
			ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
			defer cancel()
			detection.st = Probe(ctx, "")
		}()
	})
}

// Detected is what the probe found, starting it if no one has. It waits
// for the probe until ctx ends; ok is false if it had to stop waiting.
func Detected(ctx context.Context) (st Status, ok bool) {
	StartDetect()
	select {
	case <-detection.done:
		return detection.st, true
	case <-ctx.Done():
		return Status{Level: LevelNone, Why: "the sandbox's probe has not finished"}, false
	}
}
