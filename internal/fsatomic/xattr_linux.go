package fsatomic

import (
	"bytes"
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// keepXattr says which extended attributes a replace carries over on
// Linux: the user's own (user.*) and the POSIX access ACL. Security labels
// (security.*) are the system's to assign to a new file, and trusted.* is
// for privileged tools.
func keepXattr(name string) bool {
	return strings.HasPrefix(name, "user.") || name == "system.posix_acl_access"
}

// listXattrs reads the extended attributes of the open file fd that a
// replace keeps. A file system without them has none.
func listXattrs(fd int) ([]xattr, error) {
	names, err := readXattrList(fd)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	var out []xattr
	for _, n := range bytes.Split(names, []byte{0}) {
		name := string(n)
		if name == "" || !keepXattr(name) {
			continue
		}
		v, err := readXattr(fd, name)
		if errors.Is(err, unix.ENODATA) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, xattr{name: name, value: v})
	}
	return out, nil
}

func readXattrList(fd int) ([]byte, error) {
	for {
		n, err := unix.Flistxattr(fd, nil)
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
			return nil, nil
		}
		if err != nil || n == 0 {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // grew meanwhile
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}

func readXattr(fd int, name string) ([]byte, error) {
	for {
		n, err := unix.Fgetxattr(fd, name, nil)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Fgetxattr(fd, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}

func setXattr(fd int, x xattr) error { return unix.Fsetxattr(fd, x.name, x.value, 0) }
