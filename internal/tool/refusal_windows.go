package tool

import (
	"errors"
	"syscall"
)

// Windows error codes that describe the path or the file rather than the
// machine (winerror.h); syscall names only a few of them.
const (
	errorWriteProtect        syscall.Errno = 19   // the medium is write-protected
	errorSharingViolation    syscall.Errno = 32   // another program has the file open
	errorLockViolation       syscall.Errno = 33   // another program has locked part of it
	errorInvalidName         syscall.Errno = 123  // a character the name may not hold
	errorBadPathname         syscall.Errno = 161  // the path is malformed
	errorFilenameExcedRange  syscall.Errno = 206  // the path or a name in it is too long
	errorDirectory           syscall.Errno = 267  // a file where a folder was meant
	errorCantResolveFilename syscall.Errno = 1921 // links that loop, or too many of them
)

// actionableErrno is Actionable for the Windows errors above.
func actionableErrno(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case errorWriteProtect, errorSharingViolation, errorLockViolation, errorInvalidName,
		errorBadPathname, errorFilenameExcedRange, errorDirectory, errorCantResolveFilename:
		return true
	}
	return false
}
