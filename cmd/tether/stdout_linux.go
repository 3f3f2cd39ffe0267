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
	// A pipe or socket is written through Go's poller: a client that stops
	// reading then holds up a goroutine, not a thread.
	if pipeOrSocket(fd) {
		_ = unix.SetNonblock(fd, true)
	}
	return os.NewFile(uintptr(fd), "/dev/stdout (protocol)")
}

// pipeOrSocket reports whether fd is a pipe or a socket: something only
// the client's end shares, which may be put in non-blocking mode.
func pipeOrSocket(fd int) bool {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false
	}
	kind := st.Mode & unix.S_IFMT
	return kind == unix.S_IFIFO || kind == unix.S_IFSOCK
}

// reserveStdin gives the protocol stdin to the daemon alone, as
// reserveStdout does stdout, and lets Go's poller wait on it: the pipe is
// moved to a new descriptor (closed on exec) in non-blocking mode, and
// descriptor 0 becomes /dev/null, so no stray read in the process, and no
// tool's child, can take bytes of a frame. Waiting in the poller instead
// of in a blocking read keeps a call handed to a worker on the reader's
// thread, where a blocked read would have that thread's processor handed
// elsewhere first. A terminal or a file is left as it is (non-blocking
// mode would leak to the shell that shares the terminal), and so is
// anything when a step fails.
func reserveStdin() *os.File {
	if !pipeOrSocket(unix.Stdin) {
		return os.Stdin
	}
	fd, err := unix.FcntlInt(uintptr(unix.Stdin), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return os.Stdin
	}
	null, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		err = unix.Dup3(null, unix.Stdin, 0)
		unix.Close(null)
	}
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		unix.Close(fd)
		return os.Stdin
	}
	return os.NewFile(uintptr(fd), "/dev/stdin (protocol)")
}
