//go:build !unix && !windows

package fsatomic

// ProcessAlive cannot tell here, so every temporary file is taken to be a
// write in progress and left alone.
func ProcessAlive(int) bool { return true }
