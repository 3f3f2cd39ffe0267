//go:build unix

package fsatomic

import "syscall"

// openNonblock keeps an open from waiting on a named pipe with no writer.
// It changes nothing for a regular file.
const openNonblock = syscall.O_NONBLOCK
