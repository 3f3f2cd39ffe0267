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
	log := logging.Open(os.Stderr)
	defer log.Close()
	ctx, in, out, done := stdioServer()
	defer done()
	err := daemon.Serve(ctx, in, out, daemon.Options{Version: version, Log: log, Approvals: true})
	switch {
	case err == nil, ctx.Err() != nil:
		return 0
	case errors.Is(err, daemon.ErrExitWithoutShutdown):
		return 1
	}
	log.Logger().Error("serve failed", "err", err)
	return 1
}

// oneProcessor has one processor run the Go code, unless GOMAXPROCS says
// otherwise, as serve, mcp and call do. The calls mostly wait (on the
// disk, the pipes, ripgrep and the shell), and with a second processor
// idle each call woke a thread to look for work and put it back to sleep:
// measured side by side (bench/peers -against), one processor took
// 0.75-0.81x the CPU of a 4 KiB read_file and 0.52-0.64x that of a 1 MiB
// write_file, and no more time; tether mcp's 4 KiB read took 0.62 ms of
// CPU against 0.88 ms (bench/mcp). `tether call`'s calls wait the same
// way (its glob on ripgrep's own threads); there, side by side with two
// processors, no difference stood out of the noise. A call busy
// computing for long still hands the reading on (see daemon's runInline) at the runtime's next
// preemption, within milliseconds.
func oneProcessor() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// stdioServer readies the process to serve a client on stdin and stdout,
// as serve and mcp do: one processor, signals, and the protocol's own
// descriptors. done undoes what it can.
func stdioServer() (ctx context.Context, in, out *os.File, done func()) {
	oneProcessor()
	// A client that goes away leaves stdout a broken pipe; the write must
	// fail with an error, not kill the process before it stops its tools'
	// processes. Notify, not Ignore: an ignored signal stays ignored in
	// every child the tools start, and shell pipelines rely on SIGPIPE.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	out = reserveStdout()
	return ctx, reserveStdin(), out, func() {
		out.Close()
		stop()
	}
}
