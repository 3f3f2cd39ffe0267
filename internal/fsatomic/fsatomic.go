// Package fsatomic writes files so that a crash leaves either the old
// content or the new, never a mix: a temporary file in the same folder,
// fsync, rename over the target, fsync the folder.
package fsatomic

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFile atomically replaces path with data. An existing file's mode is
// kept; a new file gets perm. The parent folder must exist.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		perm = st.Mode().Perm()
	}
	// A writer killed mid-write leaves its temporary file; clear those of
	// dead writers before adding ours.
	_, _ = SweepTemps(path)
	tmp, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	// CreateTemp makes 0600; set the real mode before the name appears.
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmpName, path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// tempPrefix starts the name of every temporary file written for base. The
// writer's pid follows it, so a later writer can tell the leftover of a
// killed process from a write in progress in another one.
func tempPrefix(base string) string { return "." + base + ".tether-" }

// SweepTemps removes the temporary files that writers killed mid-write left
// beside path, and returns their names. Temporary files of processes still
// running are left alone: they may be writing now.
func SweepTemps(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	prefix := tempPrefix(base)
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if os.Remove(name) == nil {
			removed = append(removed, name)
		}
	}
	return removed, nil
}

// SyncDir makes a rename or removal in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	// Some filesystems cannot sync a folder; the rename itself still happened.
	if err := d.Sync(); err != nil && !errors.Is(err, errSyncUnsupported) {
		return err
	}
	return nil
}

// ErrExists is returned by RenameNoReplace when the target exists.
var ErrExists = fs.ErrExist

// linkRename moves from to to with a hard link, which fails on an existing
// target, then removes the old name.
func linkRename(from, to string) error {
	if err := os.Link(from, to); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return err
	}
	return os.Remove(from)
}
