//go:build !unix

package fsatomic

import (
	"io/fs"
	"os"
)

// meta is what a file has besides its content that a replace keeps here:
// its mode (on Windows, whether it is read-only).
type meta struct{ mode fs.FileMode }

func captureMeta(d *os.Root, base, name string) (*meta, error) {
	fi, err := d.Stat(base)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular("write", name, fi.Mode())
	}
	return &meta{mode: fi.Mode().Perm()}, nil
}

func (m *meta) apply(tmp *os.File, name string) error {
	if err := tmp.Chmod(m.mode); err != nil {
		return &MetadataError{Path: name, What: "mode", Err: err}
	}
	return nil
}
