package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/logging"
)

// runServe speaks the protocol on stdin and stdout until the client sends
// exit, stdin closes, or a signal asks the daemon to stop.
func runServe(args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "tether serve takes no arguments (settings come in initialize), got %q\n", args)
		return 2
	}
	// One processor runs the daemon's Go code, unless GOMAXPROCS says
	// otherwise. Its calls mostly wait (on the disk, the pipes, ripgrep
	// and the shell), and with a second processor idle each call woke a
	// thread to look for work and put it back to sleep: measured side by
	// side (bench/peers -against), one processor took 0.75-0.81x the CPU
	// of a 4 KiB read_file and 0.52-0.64x that of a 1 MiB write_file,
	// and no more time. A call busy computing for long still hands the
	// reading on (see daemon's runInline) at the runtime's next
	// preemption, within milliseconds.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	log := logging.Open(os.Stderr)
	defer log.Close()

	// A client that goes away leaves stdout a broken pipe; the write must
	// fail with an error, not kill the daemon before it stops its tools'
	// processes. Notify, not Ignore: an ignored signal stays ignored in
	// every child the tools start, and shell pipelines rely on SIGPIPE.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	out := reserveStdout()
	defer out.Close()
	err := daemon.Serve(ctx, reserveStdin(), out, daemon.Options{Version: version, Log: log})
	switch {
	case err == nil, ctx.Err() != nil:
		return 0
	case errors.Is(err, daemon.ErrExitWithoutShutdown):
		return 1
	}
	log.Logger().Error("serve failed", "err", err)
	return 1
}
