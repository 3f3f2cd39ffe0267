package search

import "strings"

// runnableExt reports whether ext is one of the extensions Windows runs,
// as listed in pathext (PATHEXT's form, ".COM;.EXE;.BAT"), or of the
// usual ones when pathext is empty. Case is ignored.
func runnableExt(ext, pathext string) bool {
	if pathext == "" {
		pathext = ".com;.exe;.bat;.cmd"
	}
	for _, e := range strings.Split(pathext, ";") {
		if e != "" && strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}
