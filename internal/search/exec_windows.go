package search

import (
	"io/fs"
	"os"
	"path/filepath"
)

// executable reports whether a regular file may be run. Windows has no
// execute bits (Go reports every file as 0666 or 0444): a program is known
// by its extension, one of PATHEXT's (.exe for VS Code's own rg.exe).
func executable(path string, fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	return runnableExt(filepath.Ext(path), os.Getenv("PATHEXT"))
}
