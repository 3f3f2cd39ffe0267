// Package fsatomic writes files so that a crash leaves either the old
// content or the new, never a mix: a temporary file in the same folder,
// fsync, rename over the target, fsync the folder.
//
// The functions ending in In work beneath an *os.Root and take names
// relative to it. Every system call that creates, renames or removes then
// happens beneath the root, so a folder swapped for a symbolic link to a
// place outside, at any moment, makes the call fail instead of reaching
// outside. The parent folder of a file is opened once and every step of a
// write (temporary file, rename, folder sync) goes through that one handle.
//
// A replaced file keeps what it had besides its content: its mode bits
// (setuid, setgid and sticky included), its owner and group, and its
// extended attributes (user.* and the POSIX access ACL on Linux, all of
// them on macOS). When one of them cannot be given to the new file (the
// process may not set the owner, say), nothing is changed and the write
// fails with a *MetadataError. A file whose mode lets nobody write it is
// read-only: writing it fails with ErrReadOnly.
package fsatomic

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrReadOnly is the error, wrapped in an *fs.PathError, of a write to a
// file whose mode lets nobody write it (0444, or the read-only attribute on
// Windows).
var ErrReadOnly = errors.New("the file is read-only")

// ErrNotRegular is the error, wrapped in an *fs.PathError, of a write over
// or a read of something that is not a regular file: a folder, a symbolic
// link, a named pipe, a device.
var ErrNotRegular = errors.New("not a regular file")

// MetadataError reports a replace that was not done because the new file
// could not keep something of the old one besides its content. The file is
// as it was.
type MetadataError struct {
	Path string
	// What names what could not be kept: "owner", "group", "mode",
	// "extended attribute user.x".
	What string
	Err  error
}

func (e *MetadataError) Error() string {
	return "replace " + e.Path + ": cannot keep its " + e.What + ": " + e.Err.Error()
}

func (e *MetadataError) Unwrap() error { return e.Err }

// DurabilityError reports a change that was made but not made durable: the
// rename (or removal) happened, so the file holds its new state, but
// syncing its folder failed, and a power cut could still undo it.
type DurabilityError struct {
	Op   string // "write", "remove", "rename"
	Path string
	Err  error
}

func (e *DurabilityError) Error() string {
	return e.Op + " " + e.Path + ": done, but not made durable: " + e.Err.Error()
}

func (e *DurabilityError) Unwrap() error { return e.Err }

// Done reports whether err, returned by a function of this package, leaves
// the change made: nil, or a *DurabilityError.
func Done(err error) bool {
	var d *DurabilityError
	return err == nil || errors.As(err, &d)
}

// WriteFile atomically replaces path with data. An existing file keeps its
// mode, owner and extended attributes; a new file gets perm. The parent
// folder must exist. It is WriteFileIn beneath the parent folder.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir, base := splitName(path)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return writeIn(root, base, path, data, perm)
}

// WriteFileIn atomically replaces name, beneath root, with data. An
// existing file keeps its mode, owner and extended attributes, or nothing
// is written (*MetadataError); a read-only one is refused (ErrReadOnly). A
// new file gets perm. The parent folder must exist. When the rename
// happened but the folder could not be synced, the error is a
// *DurabilityError.
func WriteFileIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	dir, base := splitName(name)
	d, err := root.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return writeIn(d, base, name, data, perm)
}

// writeIn does the write in the folder d; name is what errors call it.
func writeIn(d *os.Root, base, name string, data []byte, perm fs.FileMode) (err error) {
	var old *meta
	if fi, err := d.Lstat(base); err == nil {
		if !fi.Mode().IsRegular() {
			return notRegular("write", name, fi.Mode())
		}
		if readOnly(fi) {
			return &fs.PathError{Op: "write", Path: name, Err: ErrReadOnly}
		}
		if old, err = captureMeta(d, base, name); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// A writer killed mid-write leaves its temporary file; clear those of
	// dead writers before adding ours.
	_, _ = sweepIn(d, base, "")
	tmp, tmpName, err := createTemp(d, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			d.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if old != nil {
		if err = old.apply(tmp, name); err != nil {
			return err
		}
	} else if err = tmp.Chmod(perm); err != nil { // the temporary file is 0600 until now
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = d.Rename(tmpName, base); err != nil {
		return err
	}
	if serr := syncRoot(d, "."); serr != nil {
		return &DurabilityError{Op: "write", Path: name, Err: serr}
	}
	return nil
}

// KeepMetaIn gives tmp, a new file about to replace name beneath root,
// what the file now at name has besides its content and mode (its owner,
// group and extended attributes, as WriteFileIn keeps them), and the mode
// mode. Where nothing is at name, tmp only gets mode. It fails with a
// *MetadataError when something cannot be kept.
func KeepMetaIn(root *os.Root, name string, tmp *os.File, mode fs.FileMode) error {
	dir, base := splitName(name)
	d, err := root.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	m, err := captureMeta(d, base, name)
	if errors.Is(err, fs.ErrNotExist) {
		return tmp.Chmod(mode)
	}
	if err != nil {
		return err
	}
	m.mode = mode
	return m.apply(tmp, name)
}

// readOnly reports whether a file's mode lets nobody write it.
func readOnly(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o222 == 0 }

// IsReadOnly reports whether fi is a file whose mode lets nobody write it,
// which WriteFileIn refuses to replace.
func IsReadOnly(fi fs.FileInfo) bool { return fi.Mode().IsRegular() && readOnly(fi) }

// createTemp creates a new file named prefix plus random digits in d, open
// for writing, with mode 0600.
func createTemp(d *os.Root, prefix string) (*os.File, string, error) {
	for try := 0; ; try++ {
		var b [6]byte
		_, _ = rand.Read(b[:])
		n, _ := strconv.ParseUint(hex.EncodeToString(b[:]), 16, 64)
		name := prefix + strconv.FormatUint(n, 10)
		f, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, name, err
	}
}

// splitName splits a path into its folder ("." when none) and last name.
func splitName(p string) (dir, base string) {
	dir, base = filepath.Split(filepath.Clean(p))
	if dir == "" {
		dir = "."
	}
	return dir, base
}

// tempPrefix starts the name of every temporary file written for base. The
// writer's pid follows it, so a later writer can tell the leftover of a
// killed process from a write in progress in another one.
func tempPrefix(base string) string { return "." + base + ".tether-" }

// SweepTemps removes the temporary files that writers killed mid-write left
// beside path, and returns their names. Temporary files of processes still
// running are left alone: they may be writing now.
func SweepTemps(path string) ([]string, error) {
	dir, base := splitName(path)
	d, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return sweepIn(d, base, dir)
}

// SweepTempsIn is SweepTemps for name beneath root. The names it returns
// are relative to root.
func SweepTempsIn(root *os.Root, name string) ([]string, error) {
	dir, base := splitName(name)
	d, err := root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return sweepIn(d, base, dir)
}

// sweepIn removes dead writers' temporary files for base in d, returning
// their names joined to show.
func sweepIn(d *os.Root, base, show string) ([]string, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	prefix := tempPrefix(base)
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		// A taken-in symbolic link is made under a temporary name too;
		// a folder never is, and is left alone.
		if !ok || !(e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0) {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || ProcessAlive(pid) {
			continue
		}
		if d.Remove(e.Name()) == nil {
			removed = append(removed, filepath.Join(show, e.Name()))
		}
	}
	return removed, nil
}

// SyncDir makes a rename or removal in dir durable.
func SyncDir(dir string) error {
	if !dirSyncWorks {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return syncTolerant(d)
}

// SyncDirIn is SyncDir for the folder dir beneath root.
func SyncDirIn(root *os.Root, dir string) error { return syncRoot(root, dir) }

func syncRoot(root *os.Root, dir string) error {
	if !dirSyncWorks {
		return nil
	}
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return syncTolerant(d)
}

// syncFile syncs a folder; tests replace it to make a sync fail.
var syncFile = (*os.File).Sync

// syncTolerant syncs an open folder. Some file systems cannot sync a
// folder at all; the rename itself still happened there.
func syncTolerant(d *os.File) error {
	if err := syncFile(d); err != nil && !errors.Is(err, errSyncUnsupported) {
		return err
	}
	return nil
}

// MkdirAllIn creates the folder dir beneath root and any missing parents,
// each synced into its parent, and returns the folders it created, the
// topmost first, so that a step that fails afterwards can take them away
// again with RemoveCreated. On error, the folders created so far are
// returned too.
func MkdirAllIn(root *os.Root, dir string, perm fs.FileMode) (created []string, err error) {
	dir = filepath.Clean(dir)
	if dir == "." {
		return nil, nil
	}
	parts := strings.Split(dir, string(filepath.Separator))
	cur := ""
	for _, p := range parts {
		parent := cur
		if parent == "" {
			parent = "."
		}
		cur = filepath.Join(cur, p)
		fi, err := root.Stat(cur)
		if err == nil {
			if !fi.IsDir() {
				return created, &fs.PathError{Op: "mkdir", Path: cur, Err: errNotFolder}
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return created, err
		}
		if err := root.Mkdir(cur, perm); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue // made by someone else meanwhile
			}
			return created, err
		}
		created = append(created, cur)
		if err := syncRoot(root, parent); err != nil {
			return created, err
		}
	}
	return created, nil
}

// RemoveCreated removes folders MkdirAllIn created (it takes them as
// returned, topmost first, and removes the deepest first), each only while
// it is empty; it stops at the first that cannot go.
func RemoveCreated(root *os.Root, created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		if root.Remove(created[i]) != nil {
			return
		}
		parent := filepath.Dir(created[i])
		_ = syncRoot(root, parent)
	}
}

// errNotFolder is the error of a folder to create where a file is.
var errNotFolder = errors.New("a file is there, not a folder")

// ErrExists is returned by RenameNoReplace when the target exists.
var ErrExists = fs.ErrExist

// RenameNoReplace moves from to to, failing with ErrExists rather than
// replacing an existing target, and syncs both folders.
func RenameNoReplace(from, to string) error {
	fromDir, fromBase := splitName(from)
	toDir, toBase := splitName(to)
	fr, err := os.OpenRoot(fromDir)
	if err != nil {
		return err
	}
	defer fr.Close()
	tr, err := os.OpenRoot(toDir)
	if err != nil {
		return err
	}
	defer tr.Close()
	return RenameNoReplaceIn(fr, fromBase, tr, toBase)
}

// RenameNoReplaceIn moves from, beneath fromRoot, to to, beneath toRoot
// (they may be the same root), failing with ErrExists rather than
// replacing an existing target. The check and the move are one system call
// where the platform has one (renameat2 RENAME_NOREPLACE on Linux,
// renameatx_np RENAME_EXCL on macOS, a rename that does not replace on
// Windows), so a file appearing in between is never lost. Both folders are
// opened beneath their roots and the rename names them by handle, so it is
// confined like the rest. When the rename happened but a folder could not
// be synced, the error is a *DurabilityError.
func RenameNoReplaceIn(fromRoot *os.Root, from string, toRoot *os.Root, to string) error {
	fromDir, fromBase := splitName(from)
	toDir, toBase := splitName(to)
	fd, err := fromRoot.Open(fromDir)
	if err != nil {
		return err
	}
	defer fd.Close()
	td, err := toRoot.Open(toDir)
	if err != nil {
		return err
	}
	defer td.Close()
	if err := renameNoReplace(fd, fromBase, td, toBase); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	if dirSyncWorks {
		dirs := []*os.File{td}
		if !sameFile(fd, td) { // a rename within one folder needs one flush, not two
			dirs = append(dirs, fd)
		}
		for _, d := range dirs {
			if err := syncTolerant(d); err != nil {
				return &DurabilityError{Op: "rename", Path: to, Err: err}
			}
		}
	}
	return nil
}

// sameFile reports whether a and b are open on the same file; when either
// cannot be asked, it says no, which only costs a flush.
func sameFile(a, b *os.File) bool {
	ai, err := a.Stat()
	if err != nil {
		return false
	}
	bi, err := b.Stat()
	return err == nil && os.SameFile(ai, bi)
}

// RemoveIn removes the file name beneath root and syncs its folder. When
// the removal happened but the folder could not be synced, the error is a
// *DurabilityError.
func RemoveIn(root *os.Root, name string) error {
	if err := root.Remove(name); err != nil {
		return err
	}
	dir, _ := splitName(name)
	if err := syncRoot(root, dir); err != nil {
		return &DurabilityError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

// KeptMode are the mode bits a replaced file keeps, and undo and a
// command's taken-in changes put back: permissions, setuid, setgid, sticky.
const KeptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// DescribeType names what a path that is not a regular file is, in words
// for a message.
func DescribeType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// notRegular is the error of a read or write of something that is not a
// regular file.
func notRegular(op, name string, m fs.FileMode) error {
	return &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%w: %s", ErrNotRegular, DescribeType(m))}
}
