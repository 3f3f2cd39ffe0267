//go:build windows

package undo

import "golang.org/x/sys/windows"

func (l *fileLock) lock() error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(l.f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func (l *fileLock) unlock() error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, 1, 0, &ol)
}
