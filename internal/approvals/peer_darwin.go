package approvals

import "golang.org/x/sys/unix"

// peerUID is the effective user id of the process at the other end of a
// connected Unix socket (LOCAL_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
