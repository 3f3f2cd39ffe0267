//go:build !unix

package fsatomic

// openNonblock is 0 where opening a file never waits for a writer.
const openNonblock = 0
