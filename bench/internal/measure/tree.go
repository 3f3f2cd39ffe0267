package measure

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// CopyTree copies the regular files and symlinks of src into dst (a
// workspace for a benchmark to change), and returns how many files and
// bytes it copied.
func CopyTree(src, dst string) (files int, size int64, err error) {
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case !d.Type().IsRegular():
			return nil
		}
		n, err := copyFile(p, to)
		files++
		size += n
		return err
	})
	return files, size, err
}

func copyFile(from, to string) (int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o200)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// GoFiles returns the first n .go files of a Go source tree in walk
// order, those under its strings folder first, so that every run edits
// the same files.
func GoFiles(root string, n int) ([]string, error) {
	var out []string
	walk := func(dir string) error {
		return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && len(out) < n && d.Type().IsRegular() && strings.HasSuffix(p, ".go") && !slices.Contains(out, p) {
				out = append(out, p)
			}
			return err
		})
	}
	if err := walk(filepath.Join(root, "strings")); err != nil {
		return nil, err
	}
	if len(out) < n {
		if err := walk(root); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ShadowGit is a git command on a repository kept in gitDir beside the
// work tree, the way several agents snapshot a workspace. It brings its
// own identity, as a commit needs one, and reads neither the system's
// configuration nor the user's (HOME is home), so that no setting of the
// machine's, signing included, changes what a snapshot costs.
func ShadowGit(gitDir, tree, home string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir, "--work-tree=" + tree,
		"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+home)
	return cmd
}
