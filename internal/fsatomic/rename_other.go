//go:build !linux

package fsatomic

import (
	"errors"
	"path/filepath"
)

var errSyncUnsupported = errors.New("unsupported")

// RenameNoReplace moves from to to, failing with ErrExists rather than
// replacing an existing target (hard link, then remove the old name).
func RenameNoReplace(from, to string) error {
	if err := linkRename(from, to); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(to)); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(from))
}
