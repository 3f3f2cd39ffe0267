package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// reserveStdout gives the protocol stdout to the daemon alone. The real
// stdout moves to a new descriptor (closed on exec, so no tool's child
// holds the client's pipe open), and descriptor 1 becomes a copy of
// stderr: a stray print anywhere in the process, or in a library, lands in
// the log instead of corrupting a frame. If any step fails, stdout is used
// as it is.
func reserveStdout() *os.File {
	fd, err := unix.FcntlInt(uintptr(unix.Stdout), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return os.Stdout
	}
	if err := unix.Dup3(unix.Stderr, unix.Stdout, 0); err != nil {
		unix.Close(fd)
		return os.Stdout
	}
	return os.NewFile(uintptr(fd), "/dev/stdout (protocol)")
}
