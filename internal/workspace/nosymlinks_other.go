//go:build !linux

package workspace

// noSymlinks cannot tell on this platform; Real resolves every path the
// long way.
func noSymlinks(string) bool { return false }
