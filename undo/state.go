package undo

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// fileState is what a path held at one moment: nothing, or a regular file
// with this content (by SHA-256) and mode, or (saved by SaveSet, for what
// a command changed) a symbolic link and its target, or a folder and its
// mode.
type fileState struct {
	Exists bool   `json:"exists"`
	SHA    string `json:"sha,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Mode   uint32 `json:"mode,omitempty"`
	// Type is empty for a regular file, else typeSymlink or typeDir.
	Type string `json:"type,omitempty"`
	// Link is a symbolic link's target.
	Link string `json:"link,omitempty"`
	// NewDirs are the folders, deepest first, that did not exist either
	// when a path was saved as absent: the change will create them, and
	// undo removes them again (those still empty).
	NewDirs []string `json:"newDirs,omitempty"`
}

// keptModeBits are the mode bits undo puts back: those every write by
// Tether keeps.
const keptModeBits = fsatomic.KeptMode

func (s fileState) mode() fs.FileMode { return fs.FileMode(s.Mode) & keptModeBits }

// The types of a fileState besides a regular file.
const (
	typeSymlink = "symlink"
	typeDir     = "dir"
)

func (s fileState) isFile() bool { return s.Exists && s.Type == "" }
func (s fileState) isDir() bool  { return s.Exists && s.Type == typeDir }

// same reports whether two states are indistinguishable to the user.
func (s fileState) same(o fileState) bool {
	if s.Exists != o.Exists || s.Type != o.Type {
		return false
	}
	switch {
	case !s.Exists:
		return true
	case s.Type == typeSymlink:
		return s.Link == o.Link
	case s.Type == typeDir:
		return s.mode() == o.mode()
	}
	return s.SHA == o.SHA && s.Size == o.Size && s.mode() == o.mode()
}

// errNotRegular marks a path that holds something undo cannot save or put
// back: a directory, a symlink, a device.
var errNotRegular = errors.New("not a regular file")

// openState opens path for reading its state. f is nil when path does not
// exist. The caller closes f.
func openState(path string) (f *os.File, st fileState, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileState{}, nil
	}
	if err != nil {
		return nil, fileState{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fileState{}, fmt.Errorf("%s: %w (%s)", path, errNotRegular, describeType(fi.Mode()))
	}
	// Describe the file that was opened, not whatever the name held a
	// moment ago; and never wait on a named pipe swapped in meanwhile.
	f, fi, err = fsatomic.OpenRegular(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fileState{}, nil
	case errors.Is(err, fsatomic.ErrNotRegular):
		return nil, fileState{}, fmt.Errorf("%s: %w (%s)", path, errNotRegular, "a special file")
	case err != nil:
		return nil, fileState{}, err
	}
	return f, fileState{Exists: true, Mode: uint32(fi.Mode() & keptModeBits)}, nil
}

// currentState hashes what path holds now, without storing it.
func currentState(path string) (fileState, error) {
	st, _, err := observe(path)
	return st, err
}

// observe is currentState that also returns the file's identity (nil when
// absent), to notice cheaply whether the path changed since. A symbolic
// link and a folder are states too; any other kind of file is
// errNotRegular.
func observe(path string) (fileState, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if absent(err) {
		return fileState{}, nil, nil
	}
	if err == nil {
		switch m := fi.Mode(); {
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return fileState{}, nil, err
			}
			return fileState{Exists: true, Type: typeSymlink, Link: target}, fi, nil
		case m.IsDir():
			return fileState{Exists: true, Type: typeDir, Mode: uint32(m & keptModeBits)}, fi, nil
		}
	}
	var f *os.File
	var st fileState
	if err == nil && fi.Mode().IsRegular() {
		// The common case in three calls: the file seen by Lstat, opened
		// and described at once; anything else goes the careful way.
		if g, gi, oerr := fsatomic.OpenRegular(path); oerr == nil {
			if os.SameFile(fi, gi) {
				f, fi, st = g, gi, fileState{Exists: true, Mode: uint32(gi.Mode() & keptModeBits)}
			} else {
				g.Close()
			}
		}
	}
	if f == nil {
		if f, st, err = openState(path); err != nil || f == nil {
			return st, nil, err
		}
		if fi, err = f.Stat(); err != nil {
			f.Close()
			return fileState{}, nil, err
		}
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fileState{}, nil, err
	}
	st.SHA, st.Size = hexSum(h), n
	return st, fi, nil
}

// unchangedSince reports whether path still holds the file observed as fi
// (nil: nothing), untouched: the same file, size, time and mode.
func unchangedSince(path string, fi fs.FileInfo) bool {
	now, err := os.Lstat(path)
	if fi == nil {
		return absent(err)
	}
	if fi.IsDir() {
		// A folder's times change with what undo itself removes in it.
		return err == nil && os.SameFile(fi, now) && now.Mode() == fi.Mode()
	}
	return err == nil && os.SameFile(fi, now) && now.Size() == fi.Size() &&
		now.ModTime().Equal(fi.ModTime()) && now.Mode() == fi.Mode()
}

// absent reports whether err, from looking a path up, says nothing is
// there: no such name, or a file where a folder of its path should be.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

func describeType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	default:
		return "a special file"
	}
}

func dirOf(path string) string { return filepath.Dir(path) }
