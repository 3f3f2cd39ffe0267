package shell

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/project"
)

// Each daemon keeps its job logs in a folder of its own under the jobs
// root, named after its owner marker and holding a lock file that it keeps
// locked while it lives. A folder whose lock can be taken belongs to a
// daemon that is gone: its logs are deleted and any process still carrying
// its marker is stopped.

const (
	folderPrefix = "d-"
	tempPrefix   = ".tmp-"
	lockName     = "lock"
	// tempMaxAge is how long a half-made folder is given before it is
	// taken for the remains of a daemon that died while making it.
	tempMaxAge = time.Minute
)

// JobsRoot is where job logs live: $XDG_STATE_HOME/tether/jobs. The
// variable is read at each call, not once at start, so a test (or a
// daemon whose environment is changed on purpose) is obeyed. The XDG
// specification says a relative value is invalid and must be ignored.
func JobsRoot() string {
	return filepath.Join(project.StateHome(), "tether", "jobs")
}

// claimFolder makes this daemon's folder. It is built under a temporary
// name and renamed only once its lock is held, so another daemon's cleanup
// can never find it unlocked.
func claimFolder(root string) (dir, owner string, lock *os.File, err error) {
	owner = NewMarker()
	tmp, err := os.MkdirTemp(root, tempPrefix)
	if err != nil {
		return "", "", nil, err
	}
	lock, err = os.OpenFile(filepath.Join(tmp, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = tryLock(lock)
	}
	if err == nil {
		dir = filepath.Join(root, folderPrefix+owner)
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(tmp)
		return "", "", nil, err
	}
	return dir, owner, lock, nil
}

// cleanStale removes the folders of dead daemons and stops what their
// commands left running. Errors are ignored: cleanup is best effort and
// must never keep a daemon from starting.
func cleanStale(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(root, name)
		switch {
		case strings.HasPrefix(name, tempPrefix):
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > tempMaxAge {
				os.RemoveAll(path)
			}
		case strings.HasPrefix(name, folderPrefix) && e.IsDir():
			lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR, 0)
			if err != nil {
				continue
			}
			if tryLock(lock) == nil {
				stopOwner(strings.TrimPrefix(name, folderPrefix))
				os.RemoveAll(path)
			}
			lock.Close()
		}
	}
}

// stopOwner stops every process that carries a dead daemon's marker.
func stopOwner(owner string) {
	marker := owner + "/"
	alive := survivors(0, marker, true)
	if len(alive) == 0 {
		return
	}
	for _, pid := range alive {
		signalPid(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(DefaultGrace)
	for len(alive) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		alive = survivors(0, marker, true)
	}
	for _, pid := range alive {
		signalPid(pid, syscall.SIGKILL)
	}
}
