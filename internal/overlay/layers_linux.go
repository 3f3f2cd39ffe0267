package overlay

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const supported = true

// lockFile opens path (made if missing) and takes an exclusive flock on
// it; with wait false it fails at once when another process holds it. The
// kernel drops the lock when the process dies, however it dies.
func lockFile(path string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func deviceOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}

// changeTime is a file's ctime: set by the kernel on every change of the
// file's content or metadata, and never by a program.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}

// holds caches canHoldLayers per folder for the life of the process.
var holds sync.Map

// canHoldLayers reports whether the file system of dir keeps user
// extended attributes, which an overlay mounted by a user needs for its
// opaque directories (tmpfs before Linux 6.6 does not).
func canHoldLayers(dir string) bool {
	dir = filepath.Clean(dir)
	if v, ok := holds.Load(dir); ok {
		return v.(bool)
	}
	probe, err := os.MkdirTemp(dir, ".probe-")
	if err != nil {
		return false
	}
	defer os.Remove(probe)
	ok := unix.Setxattr(probe, "user.tether.probe", []byte("y"), 0) == nil
	holds.Store(dir, ok)
	return ok
}
