//go:build unix && !linux && !darwin

package fsatomic

import (
	"os"

	"golang.org/x/sys/unix"
)

var errSyncUnsupported = unix.EINVAL

const dirSyncWorks = true

// renameNoReplace moves with a hard link, which fails on an existing
// target, then removes the old name; both relative to the folders' handles.
func renameNoReplace(from *os.File, fromBase string, to *os.File, toBase string) error {
	ffd, tfd := int(from.Fd()), int(to.Fd())
	if err := unix.Linkat(ffd, fromBase, tfd, toBase, 0); err != nil {
		return err
	}
	return unix.Unlinkat(ffd, fromBase, 0)
}
