package shell

import (
	"os"
	"path/filepath"
	"strconv"
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
	// cgroupFile holds the path of the daemon's cgroup, if it has one.
	cgroupFile = "cgroup"
	// groupPrefix names a file per running command's process group,
	// holding the start time of its leader.
	groupPrefix = "pg-"
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
func claimFolder(root, owner string) (dir string, lock *os.File, err error) {
	tmp, err := os.MkdirTemp(root, tempPrefix)
	if err != nil {
		return "", nil, err
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
		return "", nil, err
	}
	return dir, lock, nil
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
				stopLeftovers(path)
				stopOwner(strings.TrimPrefix(name, folderPrefix))
				os.RemoveAll(path)
			}
			lock.Close()
		}
	}
}

// stopLeftovers stops what a dead daemon's commands left, as its folder
// records it: everything in its cgroup, and the process groups of the
// commands that were running, with their leaders' descendants.
func stopLeftovers(folder string) {
	if b, err := os.ReadFile(filepath.Join(folder, cgroupFile)); err == nil {
		killCgroup(strings.TrimSpace(string(b)))
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), groupPrefix)
		if !ok {
			continue
		}
		pgid, err := strconv.Atoi(rest)
		if err != nil || pgid <= 1 {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(folder, e.Name()))
		start, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		stopGroup(pgid, start)
	}
}

// stopGroup stops a dead daemon's command's process group and, while its
// leader still runs, the leader's descendants. A leader that is gone
// leaves its group's id reserved while any member lives, so the group is
// still the command's; a live process under that id that started at
// another time is someone else's, and is left alone.
func stopGroup(pgid int, start uint64) {
	var pids []int
	if now, ok := procStart(pgid); ok {
		if start != 0 && now != start {
			return
		}
		pids = descendants(pgid)
	}
	if !signalGroup(pgid, 0) && len(pids) == 0 {
		return
	}
	signalGroup(pgid, syscall.SIGTERM)
	for _, pid := range pids {
		signalPid(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(DefaultGrace)
	for signalGroup(pgid, 0) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	signalGroup(pgid, syscall.SIGKILL)
	for _, pid := range pids {
		signalPid(pid, syscall.SIGKILL)
	}
}

// stopOwner stops every process that carries a dead daemon's marker.
func stopOwner(owner string) {
	marker := owner + "/"
	alive := markedProcs(marker, true)
	if len(alive) == 0 {
		return
	}
	for _, pid := range alive {
		signalPid(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(DefaultGrace)
	for len(alive) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		alive = markedProcs(marker, true)
	}
	for _, pid := range alive {
		signalPid(pid, syscall.SIGKILL)
	}
}
