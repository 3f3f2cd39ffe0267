package approvals

import "golang.org/x/sys/unix"

// peerUID is the user id of the process at the other end of a connected
// Unix socket, as the kernel recorded it when the connection was made.
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
