package fsatomic

import "golang.org/x/sys/unix"

func setXattrPath(p, name string, v []byte) error { return unix.Setxattr(p, name, v, 0) }

func getXattrPath(p, name string) ([]byte, error) {
	buf := make([]byte, 256)
	n, err := unix.Getxattr(p, name, buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}
