//go:build !unix && !windows

package undo

// Platforms without file locks (wasm, plan9) run one daemon at a time; the
// Store's mutex still orders changes within the process.
func (l *fileLock) lock() error   { return nil }
func (l *fileLock) unlock() error { return nil }
