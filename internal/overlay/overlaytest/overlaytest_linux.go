package overlaytest

import (
	"fmt"
	"os"
	"syscall"
)

// sysProcAttr puts the shell in new user and mount namespaces, as the
// user's own id mapped to root (which may mount there).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
}

// ownerOf writes a file's owner and group as " uid:gid".
func ownerOf(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf(" %d:%d", st.Uid, st.Gid)
	}
	return ""
}
