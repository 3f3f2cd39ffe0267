package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The full sandbox's file system is built in the init, inside its new
// mount namespace, before the command starts:
//
//  1. Nothing propagates back to the host (every mount private).
//  2. Every path to bind is opened first, from the host's view, refusing
//     symbolic links in any component (openat2 RESOLVE_NO_SYMLINKS), so a
//     link swapped in by an earlier command cannot redirect a bind; binds
//     are then made from those descriptors, never from paths.
//  3. The whole host tree is cloned (open_tree) and made read-only,
//     nosuid and nodev in one call (mount_setattr, recursive), then
//     attached under a scratch tmpfs on /tmp.
//  4. Over that: an empty tmpfs on each hidden folder (homes, /run, …),
//     a fresh /tmp and /var/tmp, a minimal /dev, a fresh /proc (this pid namespace's
//     processes only) with /proc/sys and friends read-only.
//  5. Binds, shortest path first so a folder is bound before what is
//     inside it: the toolchain read-only, the caches and the workspace
//     folders writable (or the overlay of a folder that has one), each
//     folder's .git written through with hooks/, config and a gitdir:
//     file read-only.
//  6. The hidden folders' tmpfs and /dev made read-only, so a write to the
//     home folder fails instead of landing in a private copy.
//  7. pivot_root into the new tree and detach the host's (pivotRoot), once
//     the command is known: a folder overlaid for that command alone is
//     mounted then, over its bind.
//
// Targets are opened beneath the new root with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS too; missing mount points are created only inside
// the tmpfs this function made.

// stagingDir is where the new root is assembled, on a scratch tmpfs.
const stagingDir = "/tmp"

// devNodes are the device files of the minimal /dev.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// procReadOnly are the parts of the fresh /proc bound read-only over
// themselves: what could change the kernel's settings.
var procReadOnly = []string{"sys", "sysrq-trigger", "irq", "bus", "fs"}

// bind is one bind (or overlay) to make in the new root.
type bind struct {
	target   string // absolute path in the new root
	src      int    // O_PATH descriptor of the source, from the host's view
	readOnly bool
	isDir    bool
	overlay  *overlayFDs
}

type overlayFDs struct{ lower, upper, work int }

// newRootPath is where the new root is assembled.
var newRootPath = filepath.Join(stagingDir, "root")

// hostTree is a copy of the host's whole tree, detached, taken before the
// scratch tmpfs hides part of it: the paths of one command's overlays
// are opened in it after that (see pivotRoot). -1 until then.
var hostTree = -1

// openHost opens a path as the host sees it (see openNoFollow).
func openHost(path string, flags int) (int, error) {
	if hostTree < 0 {
		return openNoFollow(unix.AT_FDCWD, path, flags)
	}
	return unix.Openat2(hostTree, rel(path), &unix.OpenHow{
		Flags:   uint64(flags | unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// buildRoot builds the command's file system at newRootPath, all but the
// overlays of one command's own (see pivotRoot). The host's view stays in
// place until then.
func buildRoot(s Spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	binds, err := openSources(s)
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range binds {
			unix.Close(b.src)
			if b.overlay != nil {
				unix.Close(b.overlay.upper)
				unix.Close(b.overlay.work)
			}
		}
	}()
	devs := map[string]int{}
	for _, name := range devNodes {
		fd, err := openNoFollow(unix.AT_FDCWD, "/dev/"+name, 0)
		if err != nil {
			continue // a machine without /dev/tty (no terminal subsystem) still runs
		}
		devs[name] = fd
		defer unix.Close(fd)
	}

	tree, err := unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE|unix.AT_RECURSIVE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("cloning the file system tree: %w", err)
	}
	if hostTree, err = unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE|unix.AT_RECURSIVE|unix.OPEN_TREE_CLOEXEC); err != nil {
		return fmt.Errorf("keeping a view of the host's tree: %w", err)
	}
	defer unix.Close(tree)
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{
		Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV,
	}); err != nil {
		return fmt.Errorf("making the file system read-only: %w", err)
	}
	if err := mountTmpfs(unix.AT_FDCWD, stagingDir, "0700"); err != nil {
		return fmt.Errorf("mounting the scratch tmpfs: %w", err)
	}
	newRoot := newRootPath
	if err := os.Mkdir(newRoot, 0o755); err != nil {
		return err
	}
	if err := unix.MoveMount(tree, "", unix.AT_FDCWD, newRoot, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("attaching the new root: %w", err)
	}
	root, err := unix.Open(newRoot, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(root)
	nr := newRootFS{fd: root}

	// The empty folders: a private /tmp, then the hidden ones (read-only
	// once the binds inside them are made; one inside /tmp, like a home
	// folder there, is made in the new /tmp first), /dev.
	if err := nr.tmpfs("/tmp", "1777"); err != nil {
		return fmt.Errorf("mounting the private /tmp: %w", err)
	}
	// /var/tmp is shared like /tmp, and where other programs may leave
	// their sockets: private too.
	if err := nr.tmpfs("/var/tmp", "1777"); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("mounting the private /var/tmp: %w", err)
	}
	var readOnlyLater []string
	hidden := slices.Clone(s.Hidden)
	sort.SliceStable(hidden, func(i, j int) bool { return depth(hidden[i]) < depth(hidden[j]) })
	for _, h := range hidden {
		if h == "/tmp" || h == "/var/tmp" || h == "/dev" || h == "/proc" {
			continue
		}
		dir, err := nr.ensure(h, true)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EROFS) {
			continue // gone since the spec was made
		}
		if err == nil {
			err = mountTmpfs(dir, "", "0755")
			unix.Close(dir)
		}
		if err != nil {
			return fmt.Errorf("hiding %s: %w", h, err)
		}
		readOnlyLater = append(readOnlyLater, h)
	}
	if err := nr.dev(devs); err != nil {
		return fmt.Errorf("making /dev: %w", err)
	}
	readOnlyLater = append(readOnlyLater, "/dev")
	if err := nr.proc(); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}

	if err := nr.bindAll(binds); err != nil {
		return err
	}
	for _, p := range readOnlyLater {
		if err := nr.setattr(p, unix.MOUNT_ATTR_RDONLY, false); err != nil {
			return fmt.Errorf("making %s read-only: %w", p, err)
		}
	}
	return nil
}

// pivotRoot mounts the overlays of one command's own (each over its
// folder's bind, with the folder's .git bound through again on top), then
// pivots into the new root and detaches the host's.
func pivotRoot(overlays []Folder) error {
	root, err := unix.Open(newRootPath, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(root)
	nr := newRootFS{fd: root}
	for _, f := range overlays {
		if !f.Overlaid() {
			continue
		}
		binds, err := openSources(Spec{Folders: []Folder{f}})
		if err != nil {
			return err
		}
		err = nr.bindAll(binds)
		for _, b := range binds {
			unix.Close(b.src)
			if b.overlay != nil {
				unix.Close(b.overlay.upper)
				unix.Close(b.overlay.work)
			}
		}
		if err != nil {
			return err
		}
	}
	unix.Close(hostTree)
	hostTree = -1
	if err := unix.Chdir(newRootPath); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the host's file system: %w", err)
	}
	return unix.Chdir("/")
}

// openSources opens every path to bind, from the host's view, without
// following symbolic links, and lists the binds to make.
func openSources(s Spec) ([]bind, error) {
	var binds []bind
	var err error
	add := func(path string, readOnly bool) error {
		fd, e := openHost(path, 0)
		if errors.Is(e, unix.ENOENT) {
			return nil // gone since the spec was made: nothing to show
		}
		if e != nil {
			return fmt.Errorf("opening %s: %w", path, e)
		}
		binds = append(binds, bind{target: path, src: fd, readOnly: readOnly, isDir: isDirFD(fd)})
		return nil
	}
	fail := func(e error) ([]bind, error) {
		for _, b := range binds {
			unix.Close(b.src)
		}
		return nil, e
	}
	for _, p := range s.ReadOnly {
		if err = add(p, true); err != nil {
			return fail(err)
		}
	}
	for _, p := range s.Writable {
		if err = add(p, false); err != nil {
			return fail(err)
		}
	}
	for _, f := range s.Folders {
		fd, e := openHost(f.Path, unix.O_DIRECTORY)
		if e != nil {
			return fail(fmt.Errorf("opening the workspace folder %s: %w", f.Path, e))
		}
		b := bind{target: f.Path, src: fd, isDir: true}
		if f.Overlaid() {
			up, e1 := openHost(f.Upper, unix.O_DIRECTORY)
			wk, e2 := openHost(f.Work, unix.O_DIRECTORY)
			if e := errors.Join(e1, e2); e != nil {
				unix.Close(fd)
				closeIf(up)
				closeIf(wk)
				return fail(fmt.Errorf("opening the overlay folders of %s: %w", f.Path, e))
			}
			b.overlay = &overlayFDs{lower: fd, upper: up, work: wk}
		}
		binds = append(binds, b)
		gitBinds, e := gitSources(f, b.overlay != nil)
		if e != nil {
			return fail(e)
		}
		binds = append(binds, gitBinds...)
	}
	return binds, nil
}

// gitSources lists the binds that keep a folder's git data written
// through while what could run code outside later stays read-only:
// .git/hooks, .git/config and .git/config.worktree, a .git file (whose
// gitdir: line says where git writes) and, for a linked worktree, the
// hooks and config of the repository it belongs to, whose git folders are
// bound writable so that commits work.
func gitSources(f Folder, overlaid bool) ([]bind, error) {
	var out []bind
	dotGit := filepath.Join(f.Path, ".git")
	add := func(path string, readOnly bool) error {
		fd, err := openHost(path, 0)
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		if errors.Is(err, unix.ELOOP) {
			// A symbolic link where git keeps its hooks or config: the
			// guard run after the command (GitGuard) keeps it as it was.
			return nil
		}
		if err != nil {
			return fmt.Errorf("opening %s: %w", path, err)
		}
		out = append(out, bind{target: path, src: fd, readOnly: readOnly, isDir: isDirFD(fd)})
		return nil
	}
	mode, ok := statHost(dotGit)
	switch {
	case !ok:
		return nil, nil
	case mode == unix.S_IFREG:
		if err := add(dotGit, true); err != nil {
			return nil, err
		}
		gitDir, common := linkedGitDirs(dotGit)
		for _, d := range []string{gitDir, common} {
			if d == "" || within(d, f.Path) {
				continue
			}
			if err := add(d, false); err != nil {
				return nil, err
			}
			for _, p := range protectedGitPaths(d) {
				if err := add(p, true); err != nil {
					return nil, err
				}
			}
		}
	case mode == unix.S_IFDIR:
		if overlaid {
			if err := add(dotGit, false); err != nil {
				return nil, err
			}
		}
		for _, p := range protectedGitPaths(dotGit) {
			if err := add(p, true); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// protectedGitPaths are the parts of a git folder that decide what runs:
// hooks and the configuration (core.hooksPath, core.fsmonitor, aliases,
// filters).
func protectedGitPaths(gitDir string) []string {
	return []string{filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
}

// linkedGitDirs reads a .git file: the git folder its gitdir: line names
// and, for a linked worktree, the repository's common folder. Both are
// real absolute paths, or "".
func linkedGitDirs(dotGitFile string) (gitDir, common string) {
	b, err := readHost(dotGitFile)
	if err != nil {
		return "", ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	rel, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", ""
	}
	rel = strings.TrimSpace(rel)
	if !filepath.IsAbs(rel) {
		rel = filepath.Join(filepath.Dir(dotGitFile), rel)
	}
	gitDir = filepath.Clean(rel)
	if c, err := readHost(filepath.Join(gitDir, "commondir")); err == nil {
		p := strings.TrimSpace(string(c))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		common = filepath.Clean(p)
	}
	return gitDir, common
}

// statHost is the file type of a path as the host sees it (unix.S_IFDIR,
// unix.S_IFREG, ...), ok false where there is nothing or a symbolic link
// on the way.
func statHost(path string) (mode uint32, ok bool) {
	fd, err := openHost(path, 0)
	if err != nil {
		return 0, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0, false
	}
	return st.Mode & unix.S_IFMT, true
}

// readHost reads a small file as the host sees it, through no symbolic
// link.
func readHost(path string) ([]byte, error) {
	fd, err := openHost(path, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	f, err := os.Open(fdPath(fd))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 64<<10))
}

// newRootFS is the new root under construction.
type newRootFS struct{ fd int }

// rel is an absolute path as seen from the new root's descriptor.
func rel(path string) string {
	r := strings.TrimPrefix(filepath.Clean(path), "/")
	if r == "" {
		return "."
	}
	return r
}

// open opens path inside the new root, never leaving it and never
// following a symbolic link.
func (nr newRootFS) open(path string, flags int) (int, error) {
	return unix.Openat2(nr.fd, rel(path), &unix.OpenHow{
		Flags:   uint64(flags | unix.O_PATH | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// ensure opens path in the new root, creating it (a folder, or an empty
// file) and its missing parents where they are missing. Only the tmpfs
// made here are writable at this point, so nothing is created elsewhere.
func (nr newRootFS) ensure(path string, isDir bool) (int, error) {
	flags := 0
	if isDir {
		flags = unix.O_DIRECTORY
	}
	if fd, err := nr.open(path, flags); !errors.Is(err, unix.ENOENT) {
		return fd, err
	}
	parent, err := nr.ensure(filepath.Dir(path), true)
	if err != nil {
		return -1, err
	}
	defer unix.Close(parent)
	// O_PATH descriptors cannot be used for mkdirat; reopen through /proc.
	dir, err := unix.Open("/proc/self/fd/"+strconv.Itoa(parent), unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(dir)
	name := filepath.Base(path)
	if isDir {
		err = unix.Mkdirat(dir, name, 0o755)
	} else {
		var fd int
		fd, err = unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
		if err == nil {
			unix.Close(fd)
		}
	}
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, err
	}
	return nr.open(path, flags)
}

// tmpfs mounts an empty tmpfs on path (which must exist).
func (nr newRootFS) tmpfs(path, mode string) error {
	target, err := nr.open(path, unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(target)
	return mountTmpfs(target, "", mode)
}

// mountTmpfs mounts a fresh tmpfs at dirfd/path (dirfd alone with an
// empty path).
func mountTmpfs(dirfd int, path, mode string) error {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "mode", mode); err != nil {
		return err
	}
	return attach(fs, dirfd, path, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
}

// attach creates the file system configured in fs and mounts it at
// dirfd/path.
func attach(fs, dirfd int, path string, attrs int) error {
	if err := unix.FsconfigCreate(fs); err != nil {
		return err
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, attrs)
	if err != nil {
		return err
	}
	defer unix.Close(mnt)
	return moveTo(mnt, dirfd, path)
}

func moveTo(mnt, dirfd int, path string) error {
	flags := unix.MOVE_MOUNT_F_EMPTY_PATH
	if path == "" {
		flags |= unix.MOVE_MOUNT_T_EMPTY_PATH
	}
	return unix.MoveMount(mnt, "", dirfd, path, flags)
}

// dev makes the minimal /dev: the harmless device files bound from the
// host's, the usual links, a private pts and shm.
func (nr newRootFS) dev(devs map[string]int) error {
	if err := nr.tmpfs("/dev", "0755"); err != nil {
		return err
	}
	for name, src := range devs {
		if err := nr.bind(bind{target: "/dev/" + name, src: src}); err != nil {
			return err
		}
	}
	dir, err := nr.openDir("/dev")
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	for name, to := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"} {
		if err := unix.Symlinkat(to, dir, name); err != nil {
			return err
		}
	}
	for _, d := range []string{"pts", "shm"} {
		if err := unix.Mkdirat(dir, d, 0o755); err != nil {
			return err
		}
	}
	if err := nr.tmpfs("/dev/shm", "1777"); err != nil {
		return err
	}
	// A pts of its own, for commands that open a pseudo-terminal; where
	// the kernel refuses one, commands still run without.
	if fs, err := unix.Fsopen("devpts", unix.FSOPEN_CLOEXEC); err == nil {
		defer unix.Close(fs)
		_ = unix.FsconfigSetFlag(fs, "newinstance")
		_ = unix.FsconfigSetString(fs, "ptmxmode", "0666")
		_ = unix.FsconfigSetString(fs, "mode", "0620")
		if pts, err := nr.open("/dev/pts", unix.O_DIRECTORY); err == nil {
			_ = attach(fs, pts, "", unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC)
			unix.Close(pts)
		}
	}
	return nil
}

// openDir opens a folder of the new root for creating entries in it.
func (nr newRootFS) openDir(path string) (int, error) {
	p, err := nr.open(path, unix.O_DIRECTORY)
	if err != nil {
		return -1, err
	}
	defer unix.Close(p)
	return unix.Open("/proc/self/fd/"+strconv.Itoa(p), unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
}

// proc mounts a fresh /proc, which shows only the sandbox's processes,
// with the parts that change the kernel bound read-only.
func (nr newRootFS) proc() error {
	target, err := nr.open("/proc", unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(target)
	fs, err := unix.Fsopen("proc", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fs)
	if err := attach(fs, target, "", unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC); err != nil {
		return err
	}
	for _, name := range procReadOnly {
		p := "/proc/" + name
		src, err := nr.open(p, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return err
		}
		err = nr.bind(bind{target: p, src: src, readOnly: true})
		unix.Close(src)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// bindAll makes binds, shortest path first, so that a folder is bound
// before what is inside it.
func (nr newRootFS) bindAll(binds []bind) error {
	sort.SliceStable(binds, func(i, j int) bool { return depth(binds[i].target) < depth(binds[j].target) })
	for _, b := range binds {
		if err := nr.bind(b); err != nil {
			return fmt.Errorf("binding %s: %w", b.target, err)
		}
	}
	return nil
}

// bind makes one bind (or overlay) in the new root.
func (nr newRootFS) bind(b bind) error {
	target, err := nr.ensure(b.target, b.isDir || b.overlay != nil)
	if err != nil {
		return err
	}
	defer unix.Close(target)
	if b.overlay != nil {
		return overlay(*b.overlay, target)
	}
	mnt, err := unix.OpenTree(b.src, "", unix.OPEN_TREE_CLONE|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(mnt)
	attrs := uint64(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
	if b.readOnly {
		attrs |= unix.MOUNT_ATTR_RDONLY
	}
	if strings.HasPrefix(b.target, "/dev/") {
		attrs &^= unix.MOUNT_ATTR_NODEV
	}
	if err := unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attrs}); err != nil {
		return err
	}
	return moveTo(mnt, target, "")
}

// overlay mounts a folder's overlay at target: the real folder below,
// the caller's upper folder above. userxattr keeps overlayfs's own
// attributes in the user.overlay namespace, which is what a user
// namespace may write; redirects are neither made nor followed, metacopy
// and the index stay off, so every file in the upper folder holds all its
// data and a renamed folder is a copy, which the reader of the upper
// folder relies on.
func overlay(o overlayFDs, target int) error {
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fs)
	for _, kv := range [][2]string{
		{"lowerdir", fdPath(o.lower)},
		{"upperdir", fdPath(o.upper)},
		{"workdir", fdPath(o.work)},
		{"redirect_dir", "nofollow"},
		{"index", "off"},
		{"metacopy", "off"},
	} {
		if err := unix.FsconfigSetString(fs, kv[0], kv[1]); err != nil {
			return fmt.Errorf("overlay option %s: %w", kv[0], err)
		}
	}
	if err := unix.FsconfigSetFlag(fs, "userxattr"); err != nil {
		return fmt.Errorf("overlay option userxattr: %w", err)
	}
	return attach(fs, target, "", unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
}

// fdPath names an open descriptor as a path the kernel resolves to that
// very file, whatever happened to its name since.
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// setattr changes a mount's attributes in the new root.
func (nr newRootFS) setattr(path string, set uint64, recursive bool) error {
	fd, err := nr.open(path, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	flags := uint(unix.AT_EMPTY_PATH)
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	return unix.MountSetattr(fd, "", flags, &unix.MountAttr{Attr_set: set})
}

// openNoFollow opens path as an O_PATH descriptor, refusing a symbolic
// link in any of its components.
func openNoFollow(dirfd int, path string, flags int) (int, error) {
	return unix.Openat2(dirfd, path, &unix.OpenHow{
		Flags:   uint64(flags | unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW),
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

func isDirFD(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

func closeIf(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

func depth(p string) int { return strings.Count(filepath.Clean(p), "/") }
