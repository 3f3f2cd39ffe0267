//go:build !unix && !windows

package fsatomic

import (
	"errors"
	"os"
)

var errSyncUnsupported = errors.New("folder sync is not supported")

const dirSyncWorks = false

// renameNoReplace is refused where no rename without replace is known.
func renameNoReplace(*os.File, string, *os.File, string) error {
	return errors.ErrUnsupported
}
