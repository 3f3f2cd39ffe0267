//go:build unix

package fsatomic

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// meta is what a file has besides its content that a replace must keep.
type meta struct {
	mode     fs.FileMode
	uid, gid int
	xattrs   []xattr
}

type xattr struct {
	name  string
	value []byte
}

// captureMeta reads the mode, owner and extended attributes of the regular
// file base in d.
func captureMeta(d *os.Root, base, name string) (*meta, error) {
	f, err := d.OpenFile(base, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular("write", name, fi.Mode())
	}
	m := &meta{mode: fi.Mode() & KeptMode, uid: -1, gid: -1}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		m.uid, m.gid = int(st.Uid), int(st.Gid)
	}
	if m.xattrs, err = listXattrs(int(f.Fd())); err != nil {
		return nil, fmt.Errorf("reading the extended attributes of %s: %w", name, err)
	}
	return m, nil
}

// apply gives the temporary file tmp what the old file had: owner and
// group first (a change of owner clears setuid and setgid), then the mode,
// then the extended attributes; and checks that the system kept them.
func (m *meta) apply(tmp *os.File, name string) error {
	fi, err := tmp.Stat()
	if err != nil {
		return err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st != nil && m.uid >= 0 && (int(st.Uid) != m.uid || int(st.Gid) != m.gid) {
		if err := tmp.Chown(m.uid, m.gid); err != nil {
			what := "owner (user id " + fmt.Sprint(m.uid) + ")"
			if int(st.Uid) == m.uid {
				what = "group (group id " + fmt.Sprint(m.gid) + ")"
			}
			return &MetadataError{Path: name, What: what, Err: err}
		}
	}
	if err := tmp.Chmod(m.mode); err != nil {
		return &MetadataError{Path: name, What: "mode", Err: err}
	}
	fd := int(tmp.Fd())
	for _, x := range m.xattrs {
		if err := setXattr(fd, x); err != nil {
			return &MetadataError{Path: name, What: "extended attribute " + x.name, Err: err}
		}
	}
	// The system may drop bits without saying so (setgid for a group the
	// process is not in).
	if fi, err = tmp.Stat(); err != nil {
		return err
	}
	if got := fi.Mode() & KeptMode; got != m.mode {
		return &MetadataError{Path: name, What: fmt.Sprintf("mode %v", m.mode), Err: fmt.Errorf("the system gave the new file %v", got)}
	}
	if st, _ := fi.Sys().(*syscall.Stat_t); st != nil && m.uid >= 0 && (int(st.Uid) != m.uid || int(st.Gid) != m.gid) {
		return &MetadataError{Path: name, What: "owner", Err: fmt.Errorf("the new file is owned by %d:%d, not %d:%d", st.Uid, st.Gid, m.uid, m.gid)}
	}
	return nil
}
