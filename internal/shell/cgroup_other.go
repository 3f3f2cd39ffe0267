//go:build !linux

package shell

import "os"

// cgroup exists on Linux only; elsewhere there is none to open.
type cgroup struct{ path string }

func openCgroup(string) *cgroup { return nil }
func (*cgroup) fd() *os.File    { return nil }
func (*cgroup) stop()           {}
func killCgroup(string)         {}
