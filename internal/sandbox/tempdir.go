//go:build unix

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A command's private temporary folder (TMPDIR at the landlock level and
// on macOS) is removed when the command ends. One whose daemon was killed
// first stays behind; its name carries the daemon's pid, so that the next
// process to make one removes those of processes that are gone.

const tempPrefix = "tether-sandbox-"

var sweepOnce sync.Once

// makeTempDir makes a command's private temporary folder, owner-only.
func makeTempDir() (string, error) {
	sweepOnce.Do(sweepTempDirs)
	return os.MkdirTemp("", tempPrefix+strconv.Itoa(os.Getpid())+"-")
}

// sweepTempDirs removes the temporary folders of processes that no
// longer run, this user's only.
func sweepTempDirs() {
	dir := os.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			continue // alive, or not ours to judge
		}
		fi, err := e.Info()
		if err != nil || !ownedByMe(fi) {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// ownedByMe reports whether this user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
