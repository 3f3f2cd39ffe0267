package fsatomic

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errSyncUnsupported = unix.EINVAL

const dirSyncWorks = true

// renameNoReplace renames fromBase in the folder from to toBase in the
// folder to with renameat2(RENAME_NOREPLACE); on a file system without it,
// with a hard link and an unlink, which fails on an existing target too.
func renameNoReplace(from *os.File, fromBase string, to *os.File, toBase string) error {
	ffd, tfd := int(from.Fd()), int(to.Fd())
	err := unix.Renameat2(ffd, fromBase, tfd, toBase, unix.RENAME_NOREPLACE)
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	if err := unix.Linkat(ffd, fromBase, tfd, toBase, 0); err != nil {
		return err
	}
	return unix.Unlinkat(ffd, fromBase, 0)
}
