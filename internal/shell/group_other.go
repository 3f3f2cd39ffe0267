//go:build !unix

package shell

import (
	"os"
	"syscall"
)

// supported is false: without process groups a command's children could
// not be stopped, so commands are refused rather than run half-supervised.
const supported = false

var termSignals = []syscall.Signal{syscall.SIGTERM}

func sysProcAttr() *syscall.SysProcAttr    { return nil }
func signalGroup(int, syscall.Signal) bool { return false }
func signalPid(int, syscall.Signal)        {}
func survivors(int, string, bool) []int    { return nil }
func tryLock(*os.File) error               { return ErrUnsupported }
