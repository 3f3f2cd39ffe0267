//go:build !linux

package overlay

import (
	"io/fs"
	"os"
)

// Only Linux's overlayfs writes whiteouts and opaque folders.
func isWhiteout(fs.FileInfo) bool { return false }

func isOpaque(*os.Root, string) bool { return false }

func inode(fs.FileInfo) (uint64, uint64) { return 0, 1 }

const openFlags = 0

// lstatIn describes the entry name of the folder at p beneath root.
func lstatIn(_ *os.File, root *os.Root, p, name string) (fs.FileInfo, error) {
	return root.Lstat(p + string(os.PathSeparator) + name)
}
