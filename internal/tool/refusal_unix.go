//go:build unix

package tool

import (
	"errors"
	"syscall"
)

// actionableErrno is Actionable for the errors of a Unix file system that
// describe the path or the file rather than the machine.
func actionableErrno(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.ENOTDIR, // a part of the path is a file
		syscall.EISDIR,       // a folder where a file was meant
		syscall.ELOOP,        // links that loop, or too many of them
		syscall.ENAMETOOLONG, // the path or a name in it is too long
		syscall.EROFS,        // the file system is mounted read-only
		syscall.ETXTBSY,      // a program that is running
		syscall.ENXIO:        // a device or socket with nothing behind it
		return true
	}
	return false
}
