package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS flushes the file system dir is on, as TakeIn flushes a layer's.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
