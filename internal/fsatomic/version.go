package fsatomic

import (
	"io/fs"
	"os"
)

// SameVersion reports whether now describes the very file then described,
// not written since: the same file (device and inode), size and
// modification time, and where the system has one, the same change time,
// which every write moves and nobody can set back.
//
// A write lands in the same clock tick as the one before it on a file
// system with coarse timestamps (a few milliseconds on Linux before 6.13)
// and can keep the size, so this serves to skip a second read of content
// read moments ago, never to trust a stat taken long before.
func SameVersion(then, now fs.FileInfo) bool {
	if then == nil || now == nil {
		return false
	}
	return os.SameFile(then, now) && then.Mode() == now.Mode() && then.Size() == now.Size() &&
		then.ModTime().Equal(now.ModTime()) && sameChangeTime(then, now)
}
