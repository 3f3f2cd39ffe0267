package sandbox

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Landlock is the second wall of the full sandbox and the only one of the
// landlock level. Its rules are allow-lists: what may be read (and run)
// and what may be written; everything else is refused by the kernel,
// whatever the mounts say. What it cannot do, and the level therefore
// does not promise: hide a pathname Unix socket before ABI 9 (the Docker
// socket, the session bus), refuse UDP before ABI 10, refuse chmod,
// chown or stat.

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// applyLandlock restricts this process and everything it starts to the
// spec's paths: read and run the system's folders and the read-only
// paths; write the workspace folders, the writable paths and the
// temporary folder. Abstract Unix sockets and signals are scoped to the
// sandbox (ABI 6). Without network, TCP connect and bind are refused
// (ABI 4; UDP from ABI 10): at the full level the network namespace
// already has only its own loopback, where a command's own test server
// must keep working, so TCP is left alone there.
//
// Like the capabilities, the domain is applied to the calling thread
// only, the one that then starts the command: doing it on every thread
// of the init (as go-landlock's Restrict does) costs tens of
// milliseconds per command, for threads that run nothing but Go's
// runtime.
func applyLandlock(s Spec, tmp string) error {
	cfg := landlock.V11.BestEffort()
	if s.Network || s.Level == LevelFull {
		cfg.HandledAccessNet = 0
	}
	fd, flags, err := cfg.NewRulesetFD(landlockRules(s, tmp)...)
	if err != nil || fd < 0 {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return llsys.LandlockRestrictSelf(fd, flags)
}

// landlockRules turns a spec into Landlock rules.
func landlockRules(s Spec, tmp string) []landlock.Rule {
	hidden := slices.Clone(s.Hidden)
	hidden = append(hidden, "/tmp", "/var/tmp")
	if s.Level != LevelFull {
		// The host's shared memory is other programs' (at the full
		// level /dev/shm is private).
		hidden = append(hidden, "/dev/shm")
	}
	var roDirs, roFiles []string
	readable(string(filepath.Separator), hidden, &roDirs, &roFiles)
	for _, p := range s.ReadOnly {
		if isDir(p) {
			roDirs = append(roDirs, p)
		} else {
			roFiles = append(roFiles, p)
		}
	}
	var rwDirs, rwFiles []string
	for _, f := range s.Folders {
		rwDirs = append(rwDirs, f.Path)
	}
	for _, p := range s.Writable {
		if isDir(p) {
			rwDirs = append(rwDirs, p)
		} else {
			rwFiles = append(rwFiles, p)
		}
	}
	if tmp != "" {
		rwDirs = append(rwDirs, tmp)
	}
	if s.Level == LevelFull {
		rwDirs = append(rwDirs, "/dev/shm", "/var/tmp")
	}
	devFiles := []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx"}
	rules := []landlock.Rule{
		landlock.RODirs(roDirs...).IgnoreIfMissing(),
		landlock.ROFiles(roFiles...).IgnoreIfMissing(),
		landlock.RWDirs(rwDirs...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles(rwFiles...).IgnoreIfMissing(),
		landlock.RWFiles(devFiles...).IgnoreIfMissing(),
	}
	if s.Level == LevelFull {
		rules = append(rules, landlock.RWDirs("/dev/pts").IgnoreIfMissing(),
			// Listing any folder (ls /, find /usr): the mounts have left
			// nothing of the hidden folders to list. The landlock level
			// has no such mounts, so there a hidden folder's names stay
			// unlisted, and so does /.
			landlock.PathAccess(llsys.AccessFSReadDir, "/"))
	}
	return rules
}

// readable adds to dirs and files what may be read under dir: dir itself
// when nothing hidden lies inside it; otherwise each of its entries that
// is not hidden, recursively. Symbolic links are skipped: a rule on one
// would grant its target, which is reachable under its own path if it is
// granted at all.
func readable(dir string, hidden []string, dirs, files *[]string) {
	for _, h := range hidden {
		if within(dir, h) {
			return
		}
	}
	holds := false
	for _, h := range hidden {
		if within(h, dir) {
			holds = true
			break
		}
	}
	if !holds {
		*dirs = append(*dirs, dir)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
		case e.IsDir():
			readable(p, hidden, dirs, files)
		default:
			*files = append(*files, p)
		}
	}
}
