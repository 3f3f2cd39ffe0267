package overlay

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Layer is the upper and work directory of one workspace folder, for one
// command: what the sandbox mounts as an overlay over Folder.
type Layer struct {
	// Folder is the workspace folder's real path, the overlay's lower layer.
	Folder string
	// Upper receives everything the command writes beneath Folder; Work is
	// the overlay's scratch directory, on the same file system as Upper.
	Upper, Work string
	// Copy says Upper is on another file system than Folder, so what it
	// holds is copied into the folder rather than renamed there.
	Copy bool
}

// Set is the layers of one command, one per workspace folder. It is held
// (a lock only this process has) until Remove, so that Sweep in another
// Tether never takes it for the leftover of a dead one.
type Set struct {
	Layers []Layer
	// Started is the file system's own clock when the set was made (the
	// change time of a file made then): a file of a folder whose change
	// time is not before it was changed while the command ran. The file
	// system's clock, not the process's, so that its coarse ticks cannot
	// hide a change made just after the command started.
	Started time.Time

	dirs  []string // the set's directory in each base it uses
	locks []*os.File
}

// ErrUnsupported is Allocate's error where this system has no overlay
// Tether can use (not Linux).
var ErrUnsupported = errors.New("overlay layers need Linux")

// layersDir is the folder, under a project's state directory, that holds
// its sets.
const layersDir = "layers"

// elsewhereFile lists, one a line, the other folders where sets of the
// project were made (beside a workspace folder on another file system),
// so that Sweep finds what a killed Tether left there too.
const elsewhereFile = "elsewhere"

// siblingName is the folder made beside a workspace folder whose file
// system does not hold the state directory.
const siblingName = ".tether-layers"

// Allocate makes a set of layers for folders (real paths), under
// stateDir/layers when that is on a folder's file system, else in a
// .tether-layers folder beside the workspace folder when Tether may make
// one there, else under stateDir/layers anyway, to be copied from. Call it
// right before the command starts: the set's Started is taken here.
func Allocate(stateDir string, folders []string) (*Set, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	id := newID()
	s := &Set{}
	home := filepath.Join(stateDir, layersDir)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("overlay: making the layers folder: %w", err)
	}
	setDir := map[string]string{} // base → the set's folder in it
	for i, folder := range folders {
		base, copyIn := pickBase(home, folder, folders)
		dir, ok := setDir[base]
		if !ok {
			var err error
			if dir, err = s.open(base, id); err != nil {
				s.Remove()
				return nil, err
			}
			setDir[base] = dir
			if base != home {
				if err := noteElsewhere(home, base); err != nil {
					s.Remove()
					return nil, err
				}
			}
		}
		l := Layer{Folder: folder, Upper: filepath.Join(dir, strconv.Itoa(i), "upper"), Work: filepath.Join(dir, strconv.Itoa(i), "work"), Copy: copyIn}
		for _, d := range []string{l.Upper, l.Work} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				s.Remove()
				return nil, fmt.Errorf("overlay: %w", err)
			}
		}
		s.Layers = append(s.Layers, l)
	}
	stamp := filepath.Join(s.dirs[0], "started")
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		s.Remove()
		return nil, fmt.Errorf("overlay: %w", err)
	}
	fi, err := os.Lstat(stamp)
	if err != nil {
		s.Remove()
		return nil, fmt.Errorf("overlay: %w", err)
	}
	s.Started = changeTime(fi)
	return s, nil
}

// open makes the set's folder in base and takes its lock.
func (s *Set) open(base, id string) (string, error) {
	dir := filepath.Join(base, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("overlay: making the layers of a command: %w", err)
	}
	s.dirs = append(s.dirs, dir)
	lock, err := lockFile(filepath.Join(dir, "lock"), true)
	if err != nil {
		return "", fmt.Errorf("overlay: locking %s: %w", dir, err)
	}
	s.locks = append(s.locks, lock)
	return dir, nil
}

// Remove deletes the set's layers and releases it. Call it once what the
// command wrote is taken in (or dropped); a set a crash leaves behind is
// removed by the next Sweep.
func (s *Set) Remove() error {
	var errs []error
	for _, d := range s.dirs {
		errs = append(errs, removeAll(d))
	}
	for _, l := range s.locks {
		errs = append(errs, l.Close())
	}
	s.dirs, s.locks = nil, nil
	return errors.Join(errs...)
}

// pickBase chooses where folder's layer goes: the first candidate on the
// folder's file system that can hold overlay metadata and overlaps no
// workspace folder; copyIn is set when none could and the state folder is
// used anyway.
func pickBase(home, folder string, folders []string) (base string, copyIn bool) {
	candidates := []string{home, filepath.Join(filepath.Dir(folder), siblingName)}
	for _, c := range candidates {
		if overlaps(c, folders) || !sameDevice(c, folder) || !canHoldLayers(c) {
			continue
		}
		return c, false
	}
	return home, true
}

// overlaps reports whether dir is inside one of folders or holds one: an
// overlay refuses layers nested in one another.
func overlaps(dir string, folders []string) bool {
	for _, f := range folders {
		if within(dir, f) || within(f, dir) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sameDevice reports whether dir (made if missing, for the sibling folder)
// is on the file system of folder.
func sameDevice(dir, folder string) bool {
	if filepath.Base(dir) == siblingName {
		// Only make the sibling folder where it would be used.
		parent, err := os.Stat(filepath.Dir(dir))
		f, ferr := os.Stat(folder)
		if err != nil || ferr != nil || deviceOf(parent) != deviceOf(f) {
			return false
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return false
		}
	}
	d, err := os.Stat(dir)
	f, ferr := os.Stat(folder)
	return err == nil && ferr == nil && d.IsDir() && deviceOf(d) == deviceOf(f)
}

// noteElsewhere records base in the project's list of other layer folders.
func noteElsewhere(home, base string) error {
	path := filepath.Join(home, elsewhereFile)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("overlay: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == base {
			return nil
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	_, err = f.WriteString(base + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Sweep removes the sets of the project at stateDir that no running Tether
// holds: those a killed one left behind. It returns what it could not
// remove; a failure does not stop the others.
func Sweep(stateDir string) error {
	if !supported {
		return nil
	}
	home := filepath.Join(stateDir, layersDir)
	bases := []string{home}
	if data, err := os.ReadFile(filepath.Join(home, elsewhereFile)); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" && filepath.IsAbs(line) {
				bases = append(bases, line)
			}
		}
	}
	var errs []error
	for _, base := range bases {
		entries, err := os.ReadDir(base)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || !validID(e.Name()) {
				continue
			}
			dir := filepath.Join(base, e.Name())
			lock, err := lockFile(filepath.Join(dir, "lock"), false)
			if err != nil {
				continue // held by a running Tether, or not ours to judge
			}
			errs = append(errs, removeAll(dir))
			lock.Close()
		}
	}
	return errors.Join(errs...)
}

// newID names a set: the time and a random part, so that sets sort by age.
func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func validID(name string) bool {
	if len(name) != len("20060102-150405-")+8 || name[8] != '-' || name[15] != '-' {
		return false
	}
	for i, c := range name {
		if i == 8 || i == 15 {
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// removeAll removes a set's folder. The overlay leaves its work directory
// with a subdirectory of mode 0, which must be opened up before anything
// in it can go.
func removeAll(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
