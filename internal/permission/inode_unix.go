//go:build unix

package permission

import (
	"io/fs"
	"syscall"
)

// inode is the file's inode number, 0 where it cannot be read.
func inode(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino)
	}
	return 0
}
