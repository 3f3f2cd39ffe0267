//go:build unix

package undo

import "golang.org/x/sys/unix"

func (l *fileLock) lock() error {
	for {
		err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func (l *fileLock) unlock() error { return unix.Flock(int(l.f.Fd()), unix.LOCK_UN) }
