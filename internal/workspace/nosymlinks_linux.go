package workspace

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 turns out to be unavailable (a kernel
// before 5.6, or a sandbox that filters it).
var noOpenat2 atomic.Bool

// noSymlinks reports whether no component of abs, a clean absolute path,
// is a symbolic link and all of them exist: then abs is its own real path.
// The kernel walks the path once, refusing any link (openat2 with
// RESOLVE_NO_SYMLINKS), in place of one lstat per component. False means
// "not known": the caller resolves the path the long way.
func noSymlinks(abs string) bool {
	if noOpenat2.Load() {
		return false
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, abs, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	switch err {
	case nil:
		unix.Close(fd)
		return true
	case unix.ENOSYS, unix.EPERM:
		noOpenat2.Store(true)
	}
	return false
}
