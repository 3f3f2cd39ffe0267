package undo

import "os"

// fileLock is an exclusive lock on a file that every Store on the same
// folder takes around each change, whichever process it lives in. The lock
// belongs to the open file, so two Stores in one process exclude each other
// too, and the system drops it when a process dies: a crashed daemon never
// leaves the store locked.
type fileLock struct{ f *os.File }

func openLock(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &fileLock{f: f}, nil
}

func (l *fileLock) close() error { return l.f.Close() }
