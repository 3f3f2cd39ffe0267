// Package workspace resolves the paths tools are given against the
// workspace folders and decides what lies inside them. Containment is
// judged on real paths: symlinks resolved and ".." gone, so a link or a
// clever relative path cannot carry a write outside the roots.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Reasons a path argument is refused, wrapped in an *fs.PathError with the
// operation and the path; callers that speak to people or models say what
// to do about each.
var (
	ErrEmptyPath    = errors.New("empty path")
	ErrNUL          = errors.New("path contains a NUL byte")
	ErrTilde        = errors.New("path starts with ~, which is not expanded")
	ErrDanglingLink = errors.New("symbolic link to a missing target")
)

// Root is one workspace folder.
type Root struct {
	Name string
	// Path is the folder's real path (symlinks resolved).
	Path string
}

// Workspace is the ordered set of folders; the first is the default for
// relative paths.
type Workspace struct {
	roots []Root
}

// New builds a workspace from folder paths. Each must exist and be a directory.
func New(paths ...string) (*Workspace, error) {
	if len(paths) == 0 {
		return nil, errors.New("no workspace folder: open a folder, or pass one")
	}
	w := &Workspace{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("workspace folder %s: %w", p, err)
		}
		st, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("workspace folder %s: %w", p, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("workspace folder %s is not a directory", p)
		}
		w.roots = append(w.roots, Root{Name: filepath.Base(real), Path: real})
	}
	return w, nil
}

// Roots returns the folders, first one first.
func (w *Workspace) Roots() []Root { return append([]Root(nil), w.roots...) }

// Primary is the first folder's real path: the base of relative paths and
// the working directory of commands.
func (w *Workspace) Primary() string { return w.roots[0].Path }

// Abs turns a tool's path argument into a clean absolute path, relative
// paths taken from the primary folder. Symlinks are not resolved here.
func (w *Workspace) Abs(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: ErrEmptyPath}
	}
	if strings.ContainsRune(p, 0) {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: ErrNUL}
	}
	if strings.HasPrefix(p, "~/") || p == "~" {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: ErrTilde}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Primary(), p)
	}
	return filepath.Clean(p), nil
}

// Real resolves every symlink in abs. When the file does not exist yet, the
// deepest existing ancestor is resolved and the rest appended, so a new
// file's real parent is what gets judged.
func Real(abs string) (string, error) {
	if filepath.IsAbs(abs) && filepath.Clean(abs) == abs && noSymlinks(abs) {
		return abs, nil // what EvalSymlinks would return, in one system call
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	// A dangling symlink at the leaf must not be followed blindly: refuse.
	if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", &fs.PathError{Op: "resolve", Path: abs, Err: ErrDanglingLink}
	}
	parent, base := filepath.Split(abs)
	parent = filepath.Clean(parent)
	if parent == abs || base == "" {
		return "", err
	}
	realParent, perr := Real(parent)
	if perr != nil {
		return "", perr
	}
	return filepath.Join(realParent, base), nil
}

// Contains reports whether a real path lies inside one of the folders.
func (w *Workspace) Contains(real string) bool {
	_, ok := w.rootOf(real)
	return ok
}

func (w *Workspace) rootOf(real string) (Root, bool) {
	for _, r := range w.roots {
		if real == r.Path || strings.HasPrefix(real, r.Path+string(filepath.Separator)) {
			return r, true
		}
	}
	return Root{}, false
}

// Rel renders a path for people and models: relative to the primary folder
// when inside it, prefixed by the folder name for other folders, absolute
// otherwise.
func (w *Workspace) Rel(p string) string {
	for i, r := range w.roots {
		if rel, err := filepath.Rel(r.Path, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			if i == 0 {
				return filepath.ToSlash(rel)
			}
			return filepath.ToSlash(filepath.Join(r.Path, rel))
		}
	}
	return p
}

// Location is a resolved tool path.
type Location struct {
	// Abs is the clean absolute path as the caller named it.
	Abs string
	// Real is Abs with symlinks resolved; writes go here, so that writing
	// through a link updates its target instead of replacing the link.
	Real string
	// Inside reports whether Real lies in a workspace folder.
	Inside bool
}

// Locate resolves a tool's path argument.
func (w *Workspace) Locate(p string) (Location, error) {
	abs, err := w.Abs(p)
	if err != nil {
		return Location{}, err
	}
	real, err := Real(abs)
	if err != nil {
		return Location{}, err
	}
	return Location{Abs: abs, Real: real, Inside: w.Contains(real)}, nil
}
