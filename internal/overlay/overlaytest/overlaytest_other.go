//go:build !linux

package overlaytest

import (
	"os"
	"syscall"
)

// Only Linux mounts overlays; Available says so before this is used.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func ownerOf(os.FileInfo) string { return "" }
