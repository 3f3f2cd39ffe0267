package undo

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// roots are the folders undo writes in, open as os.Roots for one undo.
type roots struct {
	paths []string
	open  []*os.Root
}

// openRoots opens the Store's folders; one that cannot be opened (it is
// gone) stays nil, and what lies in it is not restored.
func (s *Store) openRoots() *roots {
	rs := &roots{paths: s.roots, open: make([]*os.Root, len(s.roots))}
	for i, p := range s.roots {
		rs.open[i], _ = os.OpenRoot(p)
	}
	return rs
}

func (rs *roots) close() {
	for _, r := range rs.open {
		if r != nil {
			r.Close()
		}
	}
}

// errOutside is why undo leaves a file alone that lies in none of the
// folders it may write in.
var errOutside = errors.New("it lies outside the workspace folders undo may write in")

// find returns the open folder path lies in and its name beneath it.
func (rs *roots) find(path string) (*os.Root, string, error) {
	for i, p := range rs.paths {
		rel, err := filepath.Rel(p, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
			continue
		}
		if rs.open[i] == nil {
			return nil, "", fmt.Errorf("its workspace folder %s cannot be opened", p)
		}
		return rs.open[i], rel, nil
	}
	return nil, "", errOutside
}

// stage writes e's prior content, with its mode, to a synced temporary
// file beside its path, beneath its folder's root, and returns that file's
// name relative to the root. Damaged saved content fails here, before
// anything is replaced.
func (s *Store) stage(rt *os.Root, rel string, e *entry) (name string, err error) {
	if e.prior.Type == typeSymlink {
		return stageLink(rt, rel, e.prior.Link)
	}
	r, err := s.blobs.open(e.prior.SHA)
	if err != nil {
		return "", fmt.Errorf("its saved content is missing from the store: %w", err)
	}
	defer r.Close()
	dir, base := filepath.Split(rel)
	if dir == "" {
		dir = "."
	}
	// Folders made here stay: the restored file needs them, and each is
	// synced into its parent so it survives a power cut with the file.
	if _, err := fsatomic.MkdirAllIn(rt, dir, 0o755); err != nil {
		return "", err
	}
	tmp, tmpName, err := createTemp(rt, filepath.Join(dir, "."+base+".tether-undo-"))
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			rt.Remove(tmpName)
		}
	}()
	if _, err = io.Copy(tmp, r); err != nil {
		return "", err
	}
	// The mode, on the open file after the write (the umask does not apply
	// and the mode is in place before the name appears), and the owner,
	// group and extended attributes of the file being replaced, as any
	// write by Tether keeps them.
	if fi, lerr := rt.Lstat(rel); lerr == nil && !fi.Mode().IsRegular() {
		// A folder or link a command left in the file's place has no
		// owner or attributes of the file's to keep.
		err = tmp.Chmod(e.prior.mode())
	} else {
		err = fsatomic.KeepMetaIn(rt, rel, tmp, e.prior.mode())
	}
	if err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	return tmpName, tmp.Close()
}

// stageLink makes a symbolic link to target beside rel, to be renamed over it.
func stageLink(rt *os.Root, rel, target string) (string, error) {
	dir, base := filepath.Split(rel)
	if dir == "" {
		dir = "."
	}
	if _, err := fsatomic.MkdirAllIn(rt, dir, 0o755); err != nil {
		return "", err
	}
	for try := 0; ; try++ {
		var b [4]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, "."+base+".tether-undo-"+strconv.FormatUint(uint64(binary.BigEndian.Uint32(b[:])), 10))
		err := rt.Symlink(target, name)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return name, err
	}
}

// createTemp creates a new file, named prefix and random digits, beneath
// rt, for writing.
func createTemp(rt *os.Root, prefix string) (*os.File, string, error) {
	for try := 0; ; try++ {
		var b [4]byte
		_, _ = rand.Read(b[:])
		name := prefix + strconv.FormatUint(uint64(binary.BigEndian.Uint32(b[:])), 10)
		f, err := rt.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, name, err
	}
}

// discard removes a staged file that will not be used.
func discard(rt *os.Root, staged string) {
	if staged != "" {
		rt.Remove(staged)
	}
}

// put makes e's path (rel beneath rt) hold its prior state: the staged
// file renamed over it, or, for a path that did not exist before, nothing.
func (s *Store) put(rt *os.Root, rel string, e *entry, staged string) error {
	if e.prior.isDir() {
		return putDir(rt, rel, e.prior.mode())
	}
	if e.prior.Exists {
		// A folder the change made in the file's place goes first; one
		// that holds anything makes this fail.
		if fi, err := rt.Lstat(rel); err == nil && fi.IsDir() {
			if err := rt.Remove(rel); err != nil {
				return err
			}
		}
	}
	if !e.prior.Exists {
		if err := rt.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// The folders the request created for it go too, while empty: one
		// the user has since put something in stays.
		base := strings.TrimSuffix(e.path, rel)
		for _, dir := range e.prior.NewDirs {
			drel, ok := strings.CutPrefix(dir, base)
			if !ok || drel == "" || rt.Remove(drel) != nil {
				break
			}
			_ = fsatomic.SyncDirIn(rt, filepath.Dir(drel))
		}
		return nil
	}
	return rt.Rename(staged, rel)
}

// putDir makes rel a folder with mode again: what the change left in its
// place (a file, a link) goes, or its mode is put back.
func putDir(rt *os.Root, rel string, mode fs.FileMode) error {
	fi, err := rt.Lstat(rel)
	if err == nil && !fi.IsDir() {
		if err := rt.Remove(rel); err != nil {
			return err
		}
		err = fs.ErrNotExist
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := fsatomic.MkdirAllIn(rt, filepath.Dir(rel), 0o755); err != nil {
			return err
		}
		if err := rt.Mkdir(rel, mode); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	// The mode as saved, whatever the umask made of it.
	return rt.Chmod(rel, mode)
}

// parallel runs fn(0..n-1) on a few goroutines: enough to overlap synced
// writes, which the file system can commit together.
func parallel(n int, fn func(i int)) {
	const workers = 16
	if n <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, workers) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
