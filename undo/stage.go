package undo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// stage writes e's prior content, with its mode, to a synced temporary
// file beside its path and returns that file's name. Damaged saved content
// fails here, before anything is replaced.
func (s *Store) stage(e *entry) (name string, err error) {
	r, err := s.blobs.open(e.prior.SHA)
	if err != nil {
		return "", fmt.Errorf("its saved content is missing from the store: %w", err)
	}
	defer r.Close()
	dir, base := filepath.Split(e.path)
	if err := mkdirDurable(filepath.Clean(dir)); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tether-undo-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = io.Copy(tmp, r); err != nil {
		return "", err
	}
	// Chmod on the open file, after the write: the umask does not apply and
	// the mode is in place before the name appears.
	if err = tmp.Chmod(e.prior.mode()); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	return tmp.Name(), tmp.Close()
}

// discard removes a staged file that will not be used.
func discard(staged string) {
	if staged != "" {
		os.Remove(staged)
	}
}

// mkdirDurable creates dir and its missing parents, syncing each new
// folder's parent so that a restored file's folder survives a power cut
// along with the file.
func mkdirDurable(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := mkdirDurable(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return fsatomic.SyncDir(parent)
}

// put makes e's path hold its prior state: the staged file renamed over
// it, or, for a path that did not exist before, nothing.
func (s *Store) put(e *entry, staged string) error {
	if !e.prior.Exists {
		if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// The folders the request created for it go too, while empty: one
		// the user has since put something in stays.
		for _, dir := range e.prior.NewDirs {
			if os.Remove(dir) != nil {
				break
			}
			_ = fsatomic.SyncDir(filepath.Dir(dir))
		}
		return nil
	}
	return os.Rename(staged, e.path)
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
