//go:build !unix

package tools

import "testing"

// mkfifo skips the test: named pipes in the file system are a Unix thing.
func mkfifo(t *testing.T, path string) {
	t.Skip("no named pipes in this file system")
}
