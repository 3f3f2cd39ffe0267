//go:build darwin

package fsatomic

import (
	"io/fs"
	"syscall"
)

func sameChangeTime(then, now fs.FileInfo) bool {
	a, ok1 := then.Sys().(*syscall.Stat_t)
	b, ok2 := now.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && a.Ctimespec == b.Ctimespec
}
