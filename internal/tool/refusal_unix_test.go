//go:build unix

package tool

import (
	"io/fs"
	"syscall"
	"testing"
)

func TestFileTroubleTakesUnixPathErrorsAsRefusals(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOTDIR, syscall.EISDIR, syscall.ELOOP, syscall.ENAMETOOLONG, syscall.EROFS, syscall.ETXTBSY, syscall.ENXIO} {
		if err := FileTrouble("open", "a.go", &fs.PathError{Op: "open", Path: "/w/a.go", Err: errno}); !IsRefusal(err) {
			t.Errorf("%v is told as a fault, want a refusal", errno)
		}
	}
	for _, errno := range []syscall.Errno{syscall.EIO, syscall.ENOSPC, syscall.EMFILE, syscall.ENOMEM, syscall.ESTALE} {
		if err := FileTrouble("open", "a.go", &fs.PathError{Op: "open", Path: "/w/a.go", Err: errno}); IsRefusal(err) {
			t.Errorf("%v is told as a refusal, want a fault", errno)
		}
	}
}
