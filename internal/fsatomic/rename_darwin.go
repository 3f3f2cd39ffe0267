package fsatomic

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errSyncUnsupported = unix.EINVAL

const dirSyncWorks = true

// renameNoReplace renames with renameatx_np(RENAME_EXCL), which works on
// APFS, HFS+, exFAT and SMB alike; a hard link would not. A volume that
// does not know the flag gets a hard link and an unlink.
func renameNoReplace(from *os.File, fromBase string, to *os.File, toBase string) error {
	ffd, tfd := int(from.Fd()), int(to.Fd())
	err := unix.RenameatxNp(ffd, fromBase, tfd, toBase, unix.RENAME_EXCL)
	if !errors.Is(err, unix.ENOTSUP) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	if err := unix.Linkat(ffd, fromBase, tfd, toBase, 0); err != nil {
		return err
	}
	return unix.Unlinkat(ffd, fromBase, 0)
}
