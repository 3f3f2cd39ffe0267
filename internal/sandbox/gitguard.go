package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// gitGuard keeps what in a workspace folder's git data decides what runs
// later, outside the sandbox, as it was before a command: .git/hooks,
// .git/config and .git/config.worktree, and a .git file (whose gitdir:
// line says where git writes). The full sandbox mounts them read-only;
// Landlock cannot keep part of a writable folder read-only, and a symbolic
// link where git keeps them cannot be mounted over. So their state is
// recorded before the command and, should the command have changed them,
// put back when it ends, through an os.Root of the folder, which no
// symbolic link the command planted can lead out of.
type gitGuard struct {
	folders []guardedFolder
}

type guardedFolder struct {
	path string
	// dotGit is the .git file's content, nil when .git is a folder or
	// absent; absent says whether there was a .git at all.
	dotGit []byte
	absent bool
	// files are the protected files under .git, by name relative to the
	// folder: their content and mode, nil content for absent.
	files map[string]guardedFile
	// hooks is the hooks folder's content, nil when .git is not a folder.
	hooks map[string]guardedFile
}

type guardedFile struct {
	data []byte
	mode fs.FileMode
	// link is a symbolic link's target ("" for a file).
	link string
}

// maxGuarded bounds what is recorded of one hooks folder: hooks are small
// scripts; a folder past this is not recorded and not put back.
const maxGuarded = 8 << 20

// guardGit records the protected git paths of each folder.
func guardGit(folders []Folder) *gitGuard {
	g := &gitGuard{}
	for _, f := range folders {
		gf := guardedFolder{path: f.Path, files: map[string]guardedFile{}}
		fi, err := os.Lstat(filepath.Join(f.Path, ".git"))
		switch {
		case err != nil:
			gf.absent = true
		case fi.Mode().IsRegular():
			gf.dotGit, _ = os.ReadFile(filepath.Join(f.Path, ".git"))
		case fi.IsDir():
			for _, name := range []string{".git/config", ".git/config.worktree"} {
				gf.files[name] = readGuarded(filepath.Join(f.Path, name))
			}
			gf.hooks = readHooks(filepath.Join(f.Path, ".git", "hooks"))
		default:
			continue // a link or something stranger: nothing git reads as its own
		}
		g.folders = append(g.folders, gf)
	}
	return g
}

func readGuarded(path string) guardedFile {
	fi, err := os.Lstat(path)
	if err != nil {
		return guardedFile{}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return guardedFile{link: target, mode: fi.Mode()}
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxGuarded {
		return guardedFile{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return guardedFile{}
	}
	return guardedFile{data: b, mode: fi.Mode().Perm()}
}

func readHooks(dir string) map[string]guardedFile {
	out := map[string]guardedFile{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		out[e.Name()] = readGuarded(filepath.Join(dir, e.Name()))
	}
	return out
}

// restore puts back what the command changed, and lists it (relative to
// the folder, with the folder), none when it changed nothing.
func (g *gitGuard) restore() []string {
	if g == nil {
		return nil
	}
	var changed []string
	for _, gf := range g.folders {
		root, err := os.OpenRoot(gf.path)
		if err != nil {
			continue
		}
		changed = append(changed, gf.restore(root)...)
		root.Close()
	}
	return changed
}

func (gf guardedFolder) restore(root *os.Root) []string {
	var changed []string
	note := func(name string) { changed = append(changed, filepath.Join(gf.path, name)) }
	switch {
	case gf.absent:
		// A repository the command made is the command's: nothing ran
		// from it yet.
		return nil
	case gf.dotGit != nil:
		now, err := root.ReadFile(".git")
		if err != nil || !bytes.Equal(now, gf.dotGit) {
			_ = root.RemoveAll(".git")
			_ = root.WriteFile(".git", gf.dotGit, 0o644)
			note(".git")
		}
		return changed
	}
	if fi, err := root.Lstat(".git"); err != nil || !fi.IsDir() {
		// The command replaced the git folder; putting a whole repository
		// back is beyond this guard: say so.
		note(".git")
		return changed
	}
	names := make([]string, 0, len(gf.files))
	for name := range gf.files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if putBack(root, name, gf.files[name]) {
			note(name)
		}
	}
	if fi, err := root.Lstat(".git/hooks"); err != nil || !fi.IsDir() {
		_ = root.RemoveAll(".git/hooks")
		_ = root.Mkdir(".git/hooks", 0o755)
		note(".git/hooks")
	}
	now, _ := readRootDir(root, ".git/hooks")
	for name := range now {
		if _, was := gf.hooks[name]; !was {
			_ = root.RemoveAll(filepath.Join(".git/hooks", name))
			note(filepath.Join(".git/hooks", name))
		}
	}
	for name, f := range gf.hooks {
		if putBack(root, filepath.Join(".git/hooks", name), f) {
			note(filepath.Join(".git/hooks", name))
		}
	}
	return changed
}

// putBack makes name what f recorded, reporting whether it had changed.
func putBack(root *os.Root, name string, f guardedFile) bool {
	now := guardedFile{}
	if fi, err := root.Lstat(name); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			now.link, _ = root.Readlink(name)
			now.mode = fi.Mode()
		case fi.Mode().IsRegular():
			now.data, _ = root.ReadFile(name)
			now.mode = fi.Mode().Perm()
		default:
			now.mode = fi.Mode()
		}
	}
	if now.link == f.link && bytes.Equal(now.data, f.data) && now.mode == f.mode && (now.data == nil) == (f.data == nil) {
		return false
	}
	if err := root.RemoveAll(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return true
	}
	switch {
	case f.link != "":
		_ = root.Symlink(f.link, name)
	case f.data != nil:
		_ = root.WriteFile(name, f.data, f.mode)
		_ = root.Chmod(name, f.mode)
	}
	return true
}

func readRootDir(root *os.Root, name string) (map[string]bool, error) {
	d, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out, err
}
