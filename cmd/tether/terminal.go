package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// errNoTerminal says approvals cannot be asked in this process.
var errNoTerminal = errors.New("no terminal to ask on")

// openTerminal opens the controlling terminal for an approval prompt.
// /dev/tty is used rather than stdin so that calls can be piped in on
// stdin while the user still answers at the keyboard. A process without a
// controlling terminal (CI, a service, setsid) gets errNoTerminal, unless
// its stdin itself is a terminal.
func openTerminal() (io.ReadWriteCloser, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err == nil {
		return tty, nil
	}
	if stdinIsTerminal() {
		return stdinTerminal{}, nil
	}
	return nil, fmt.Errorf("%w (/dev/tty: %v; stdin is not a terminal)", errNoTerminal, err)
}

// stdinTerminal asks on stdin and answers on stderr. Close is a no-op: the
// process's own stdin is not ours to close.
type stdinTerminal struct{}

func (stdinTerminal) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdinTerminal) Write(p []byte) (int, error) { return os.Stderr.Write(p) }
func (stdinTerminal) Close() error                { return nil }
