package overlay

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// isWhiteout reports whether an upper entry is a whiteout: a character
// device with device number 0/0.
func isWhiteout(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode()&fs.ModeCharDevice != 0 && st.Rdev == 0
}

// isOpaque reports whether the upper folder p hides the lower one: its
// user.overlay.opaque is "y" (a newer kernel's "x" marks a folder holding
// xattr whiteouts, which is not opaque).
func isOpaque(upper *os.Root, p string) bool {
	f, err := upper.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var buf [8]byte
	n, err := unix.Fgetxattr(int(f.Fd()), xattrOpaque, buf[:])
	return err == nil && n == 1 && buf[0] == 'y'
}

// inode is a file's inode number and link count.
func inode(fi fs.FileInfo) (uint64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, uint64(st.Nlink)
	}
	return 0, 1
}

// openFlags open a file to read without following a final link or
// waiting on a pipe that took its place.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// lstatIn describes the entry name of the open folder dir (at p beneath
// root) without following it, with one call relative to the folder.
func lstatIn(dir *os.File, _ *os.Root, _ string, name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return statInfo{name: name, st: st}, nil
}

// statInfo is an fs.FileInfo made from a stat buffer.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.st.Size }
func (s statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Sec, s.st.Mtim.Nsec) }
func (s statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s statInfo) Sys() any {
	return &syscall.Stat_t{Dev: s.st.Dev, Ino: s.st.Ino, Nlink: s.st.Nlink, Mode: s.st.Mode, Uid: s.st.Uid, Gid: s.st.Gid, Rdev: s.st.Rdev, Size: s.st.Size, Ctim: syscall.Timespec(s.st.Ctim), Mtim: syscall.Timespec(s.st.Mtim)}
}

func (s statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
