package fsatomic

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

var errSyncUnsupported = unix.EINVAL

// RenameNoReplace moves from to to, failing with ErrExists rather than
// replacing an existing target. The check and the move are one system call,
// so a file appearing in between is never lost.
func RenameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
	case errors.Is(err, unix.EEXIST):
		return ErrExists
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL):
		// A filesystem without RENAME_NOREPLACE.
		if err := linkRename(from, to); err != nil {
			return err
		}
	default:
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	if err := SyncDir(filepath.Dir(to)); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(from))
}
