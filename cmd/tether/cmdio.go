package main

import (
	"io"
	"os"
)

// cmdIO is where a command reads and writes. Commands take it instead of
// using os.Stdin and friends directly, so that tests run them in-process
// with buffers and a scripted terminal.
type cmdIO struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// terminal opens the terminal that approvals are asked on. It fails
	// when nobody can be asked (CI, a pipe, a detached process).
	terminal func() (io.ReadWriteCloser, error)
}

// osIO is the real process's standard streams and terminal.
func osIO() cmdIO {
	return cmdIO{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, terminal: openTerminal}
}
