package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ChangedSince reports whether the folder's entry at rel (not followed)
// changed at or after t, by its change time; a missing entry has not.
func (l Layer) ChangedSince(root *os.Root, rel string, t time.Time) (bool, error) {
	fi, err := root.Lstat(rel)
	if err != nil {
		if os.IsNotExist(err) || errors.Is(err, unix.ENOTDIR) {
			return false, nil
		}
		return false, err
	}
	return !changeTime(fi).Before(t), nil
}

// Sync makes everything the command wrote to the upper layer durable, with
// one flush of its file system: the files are then renamed into the
// workspace without a flush each.
func (l Layer) Sync() error {
	f, err := os.Open(l.Upper)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// OpenUpper opens the upper layer's file upper (an absolute path beneath
// Upper) for taking in, without following a link, and strips the
// overlay's own extended attributes from it, which must never reach the
// workspace.
func OpenUpper(upper string) (*os.File, error) {
	f, err := os.OpenFile(upper, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", upper)
	}
	if err == nil {
		err = stripOverlayXattrs(int(f.Fd()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func stripOverlayXattrs(fd int) error {
	n, err := unix.Flistxattr(fd, nil)
	if err != nil || n == 0 {
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		return err
	}
	buf := make([]byte, n)
	if n, err = unix.Flistxattr(fd, buf); err != nil {
		return err
	}
	for _, name := range bytes.Split(buf[:n], []byte{0}) {
		if s := string(name); strings.HasPrefix(s, xattrPrefix) {
			if err := unix.Fremovexattr(fd, s); err != nil && !errors.Is(err, unix.ENODATA) {
				return err
			}
		}
	}
	return nil
}

// StripUpper removes the overlay's own extended attributes from the upper
// layer's entry upper (not followed), which must never reach the workspace.
func StripUpper(upper string) error {
	buf := make([]byte, 1024)
	n, err := unix.Llistxattr(upper, buf)
	if errors.Is(err, unix.ERANGE) {
		if n, err = unix.Llistxattr(upper, nil); err == nil {
			buf = make([]byte, n)
			n, err = unix.Llistxattr(upper, buf)
		}
	}
	if err != nil {
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		return err
	}
	for _, name := range bytes.Split(buf[:n], []byte{0}) {
		if s := string(name); strings.HasPrefix(s, xattrPrefix) {
			if err := unix.Lremovexattr(upper, s); err != nil && !errors.Is(err, unix.ENODATA) {
				return err
			}
		}
	}
	return nil
}

// Mover renames entries of upper layers into workspace folders. It keeps
// the folders it opened for the next entries of the same folders: a set of
// a thousand files in a few folders opens a few folders, not two thousand.
// The target folders are opened beneath the workspace folder's root, so
// every rename is confined like the rest of Tether's writes.
type Mover struct {
	from map[string]*os.File
	to   map[moveKey]*os.File
}

type moveKey struct {
	root *os.Root
	dir  string
}

// NewMover makes a Mover; Close releases its folders.
func NewMover() *Mover {
	return &Mover{from: map[string]*os.File{}, to: map[moveKey]*os.File{}}
}

// Move renames the upper layer's entry upper to rel beneath root,
// replacing what is there (a file or a link; never a folder). The folder
// is not synced: the caller syncs each folder once.
func (m *Mover) Move(upper string, root *os.Root, rel string) error {
	fromDir := filepath.Dir(upper)
	from := m.from[fromDir]
	if from == nil {
		f, err := os.Open(fromDir)
		if err != nil {
			return err
		}
		from, m.from[fromDir] = f, f
	}
	dir, base := filepath.Split(rel)
	if dir == "" {
		dir = "."
	}
	key := moveKey{root, filepath.Clean(dir)}
	to := m.to[key]
	if to == nil {
		f, err := root.Open(key.dir)
		if err != nil {
			return err
		}
		to, m.to[key] = f, f
	}
	if err := unix.Renameat(int(from.Fd()), filepath.Base(upper), int(to.Fd()), base); err != nil {
		return &os.LinkError{Op: "rename", Old: upper, New: rel, Err: err}
	}
	return nil
}

// Close releases the folders the Mover opened.
func (m *Mover) Close() {
	for _, f := range m.from {
		f.Close()
	}
	for _, f := range m.to {
		f.Close()
	}
	clear(m.from)
	clear(m.to)
}
