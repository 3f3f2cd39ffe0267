//go:build !windows

package search

import "io/fs"

// executable reports whether a regular file may be run: an execute bit.
func executable(_ string, fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
