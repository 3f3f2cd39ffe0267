// Package workspace resolves the paths tools are given against the
// workspace folders and decides what lies inside them. Containment is
// judged on real paths: symlinks resolved and ".." gone, so a link or a
// clever relative path cannot carry a write outside the roots.
//
// Judging a path is not enough on its own: another process may swap a
// folder for a symbolic link between the check and the write. So each
// folder is also opened once, as an *os.Root, and every change goes
// through it (Confine): a write beneath the root cannot follow a link that
// leads out of it, whenever the link appears.
//
// On a file system that ignores case (macOS and Windows by default), A.go
// and a.go are one file: containment and Key compare paths the way the
// folder's file system does, found out once per folder.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
)

// Reasons a path argument is refused, wrapped in an *fs.PathError with the
// operation and the path; callers that speak to people or models say what
// to do about each.
var (
	ErrEmptyPath    = errors.New("empty path")
	ErrNUL          = errors.New("path contains a NUL byte")
	ErrTilde        = errors.New("path starts with ~, which is not expanded")
	ErrDanglingLink = errors.New("symbolic link to a missing target")
	ErrURI          = errors.New("not a local file URI")
	ErrControlChar  = errors.New("name contains a control character")
	ErrOutside      = errors.New("outside the workspace folders")
)

// Root is one workspace folder.
type Root struct {
	Name string
	// Path is the folder's real path (symlinks resolved).
	Path string
	// FoldsCase says the folder's file system ignores case, so that A.go
	// and a.go name one file.
	FoldsCase bool

	dir *os.Root
}

// Workspace is the ordered set of folders; the first is the default for
// relative paths. Beside them it may hold write roots: folders outside
// the workspace that the user lets changes reach (the writeRoots
// setting), judged and confined the same way, but not workspace folders
// (relative paths, Paths and Primary are the folders' alone).
type Workspace struct {
	roots []Root
	extra []Root
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
		dir, err := os.OpenRoot(real)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("workspace folder %s: %w", p, err)
		}
		w.roots = append(w.roots, Root{Name: filepath.Base(real), Path: real, FoldsCase: foldsCase(real), dir: dir})
	}
	return w, nil
}

// Close releases the folders' handles. Confine fails afterwards.
func (w *Workspace) Close() error {
	var errs []error
	for _, r := range append(w.roots, w.extra...) {
		if r.dir != nil {
			errs = append(errs, r.dir.Close())
		}
	}
	return errors.Join(errs...)
}

// AddWriteRoots adds folders outside the workspace that changes may reach:
// each must be an absolute path to an existing folder, and is kept by its
// real path, opened as an *os.Root so that every change beneath it stays
// there, as in a workspace folder. A folder already within the workspace
// or another write root adds nothing.
func (w *Workspace) AddWriteRoots(paths ...string) error {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("write root %q is not an absolute path", p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("write root %s: %w", p, err)
		}
		if st, err := os.Stat(real); err != nil {
			return fmt.Errorf("write root %s: %w", p, err)
		} else if !st.IsDir() {
			return fmt.Errorf("write root %s is not a folder", p)
		}
		if w.Contains(real) {
			continue
		}
		dir, err := os.OpenRoot(real)
		if err != nil {
			return fmt.Errorf("write root %s: %w", p, err)
		}
		w.extra = append(w.extra, Root{Name: filepath.Base(real), Path: real, FoldsCase: foldsCase(real), dir: dir})
	}
	return nil
}

// WriteRoots lists the write roots' real paths (see AddWriteRoots).
func (w *Workspace) WriteRoots() []string {
	out := make([]string, len(w.extra))
	for i, r := range w.extra {
		out[i] = r.Path
	}
	return out
}

// foldsCase finds out whether the file system of dir ignores case: it
// looks one of the folder's entries up under its name with the case of its
// letters swapped. A folder with no such entry is judged by its own name
// in its parent, and failing that by what the platform usually does.
var foldsCase = func(dir string) bool {
	if f, err := os.Open(dir); err == nil {
		defer f.Close()
		for {
			entries, err := f.ReadDir(64)
			for _, e := range entries {
				if fold, ok := sameUnderSwappedCase(dir, e.Name()); ok {
					return fold
				}
			}
			if err != nil || len(entries) == 0 {
				break
			}
		}
	}
	if fold, ok := sameUnderSwappedCase(filepath.Dir(dir), filepath.Base(dir)); ok {
		return fold
	}
	return runtime.GOOS == "darwin" || runtime.GOOS == "windows"
}

// sameUnderSwappedCase stats name in dir under its swapped-case spelling;
// ok is false when the name has no letter to swap or the answer is unclear.
func sameUnderSwappedCase(dir, name string) (fold, ok bool) {
	swapped := strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, name)
	if swapped == name {
		return false, false
	}
	orig, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return false, false
	}
	other, err := os.Lstat(filepath.Join(dir, swapped))
	switch {
	case err == nil:
		return os.SameFile(orig, other), true
	case errors.Is(err, fs.ErrNotExist):
		return false, true
	}
	return false, false
}

// Roots returns the folders, first one first.
func (w *Workspace) Roots() []Root { return append([]Root(nil), w.roots...) }

// Paths lists the folders' real paths, first one first.
func (w *Workspace) Paths() []string {
	out := make([]string, len(w.roots))
	for i, r := range w.roots {
		out[i] = r.Path
	}
	return out
}

// Primary is the first folder's real path: the base of relative paths and
// the working directory of commands.
func (w *Workspace) Primary() string { return w.roots[0].Path }

// Abs turns a tool's path argument into a clean absolute path, relative
// paths taken from the primary folder. A file:// URI, which is how editors
// hand paths around, is taken as the absolute path it names. Symlinks are
// not resolved here.
func (w *Workspace) Abs(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: ErrEmptyPath}
	}
	if strings.ContainsRune(p, 0) {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: ErrNUL}
	}
	if len(p) >= len("file://") && strings.EqualFold(p[:len("file://")], "file://") {
		path, err := FromURI(p)
		if err != nil {
			return "", err
		}
		p = path
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

// FromURI turns a file:// URI into the absolute path it names: percent
// escapes decoded, and on Windows the drive letter's leading slash dropped
// (file:///C:/x is C:\x). A URI of another scheme, of another machine, or
// naming no absolute path is refused with ErrURI.
func FromURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "file") {
		return "", &fs.PathError{Op: "resolve", Path: uri, Err: ErrURI}
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", &fs.PathError{Op: "resolve", Path: uri, Err: fmt.Errorf("%w: it names the machine %s", ErrURI, u.Host)}
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return "", &fs.PathError{Op: "resolve", Path: uri, Err: ErrURI}
	}
	return filepath.Clean(p), nil
}

// CheckNewName refuses a name for a file about to be created that holds a
// control character (a newline, a carriage return, a tab, an escape, or
// Unicode's line and paragraph separators): such a name breaks the header
// of the diff the user approves, and the terminals that show it.
func CheckNewName(name string) error {
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return &fs.PathError{Op: "create", Path: name, Err: fmt.Errorf("%w (%U)", ErrControlChar, r)}
		}
	}
	return nil
}

// Contains reports whether a real path lies inside one of the folders, or
// one of the write roots.
func (w *Workspace) Contains(real string) bool {
	_, _, ok := w.rootOf(real)
	return ok
}

// rootOf finds the folder real lies in and the rest of the path below it
// ("." for the folder itself), comparing as the folder's file system does.
func (w *Workspace) rootOf(real string) (Root, string, bool) {
	for _, r := range w.roots {
		if rel, ok := within(r, real); ok {
			return r, rel, true
		}
	}
	for _, r := range w.extra {
		if rel, ok := within(r, real); ok {
			return r, rel, true
		}
	}
	return Root{}, "", false
}

func within(r Root, real string) (string, bool) {
	n := len(r.Path)
	if len(real) < n {
		return "", false
	}
	head := real[:n]
	if head != r.Path && !(r.FoldsCase && strings.EqualFold(head, r.Path)) {
		return "", false
	}
	switch {
	case len(real) == n:
		return ".", true
	case os.IsPathSeparator(real[n]):
		return real[n+1:], true
	case os.IsPathSeparator(r.Path[n-1]): // a root such as / or C:\
		return real[n:], true
	}
	return "", false
}

// Confine returns the opened folder a real path lies in and the path's
// name relative to it, for changes made beneath the folder's os.Root. A
// path outside every folder is refused with ErrOutside.
func (w *Workspace) Confine(real string) (*os.Root, string, error) {
	r, rel, ok := w.rootOf(real)
	if !ok {
		return nil, "", &fs.PathError{Op: "confine", Path: real, Err: ErrOutside}
	}
	return r.dir, rel, nil
}

// Key is the form of a real path under which two names of one file are
// equal: the path itself, or on a folder whose file system ignores case,
// the path with its part inside the folder in lower case. Per-file locks
// and anything else that must see A.go and a.go as one file use it.
func (w *Workspace) Key(real string) string {
	r, rel, ok := w.rootOf(real)
	if !ok || !r.FoldsCase {
		return real
	}
	if rel == "." {
		return r.Path
	}
	return filepath.Join(r.Path, strings.ToLower(rel))
}

// Rel renders a path for people and models: relative to the primary folder
// when inside it, prefixed by the folder name for other folders, absolute
// otherwise.
func (w *Workspace) Rel(p string) string {
	for i, r := range w.roots {
		if rel, ok := within(r, filepath.Clean(p)); ok {
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
	// Inside reports whether Real lies in a workspace folder (or a write
	// root, which is judged the same way).
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
