package fsatomic

import (
	"bytes"
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// listXattrs reads every extended attribute of the open file fd: on macOS
// they carry Finder tags, colours and the like, and all are kept.
func listXattrs(fd int) ([]xattr, error) {
	var names []byte
	for {
		n, err := unix.Flistxattr(fd, nil)
		if errors.Is(err, unix.ENOTSUP) {
			return nil, nil
		}
		if err != nil || n == 0 {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		names = buf[:n]
		break
	}
	var out []xattr
	for _, n := range bytes.Split(names, []byte{0}) {
		name := string(n)
		if name == "" {
			continue
		}
		size, err := unix.Fgetxattr(fd, name, nil)
		if errors.Is(err, unix.ENOATTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size)
		size, err = unix.Fgetxattr(fd, name, buf)
		if err != nil {
			return nil, err
		}
		out = append(out, xattr{name: name, value: buf[:size]})
	}
	return out, nil
}

// setXattr sets one attribute. The system's own (com.apple.*, such as the
// provenance mark) may be refused to a user process; those are left to the
// system, the rest must be kept.
func setXattr(fd int, x xattr) error {
	err := unix.Fsetxattr(fd, x.name, x.value, 0)
	if err != nil && strings.HasPrefix(x.name, "com.apple.") && errors.Is(err, unix.EPERM) {
		return nil
	}
	return err
}
