package overlay

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// Type is what a path holds.
type Type uint8

const (
	None    Type = iota // nothing: absent, or removed
	File                // a regular file
	Dir                 // a folder
	Symlink             // a symbolic link
)

func (t Type) String() string {
	return [...]string{"nothing", "file", "folder", "symbolic link"}[t]
}

// State is what a path holds in one layer.
type State struct {
	Type Type
	// Mode is the permission bits, with setuid, setgid and sticky.
	Mode fs.FileMode
	// Size is a file's size in bytes.
	Size int64
	// Link is a symbolic link's target.
	Link string
}

// Change is one path the command changed, relative to its folder.
type Change struct {
	// Path is relative to the layer's folder, in the platform's form.
	Path string
	// Before is what the folder holds at the path now; After is what the
	// command left there (Type None: it removed it).
	Before, After State
	// Upper is the upper layer's entry that holds After, for a file or a
	// symbolic link; empty for a removal or a folder.
	Upper string
	// SameContent says a file kept its bytes: only its mode changed.
	SameContent bool
	// LinkTo, when set, is a path of the folder the command left unchanged
	// and made After a hard link of; LinkGroup, when not 0, groups the
	// changed files that are one inode (hard links the command made).
	LinkTo    string
	LinkGroup int
	// NoLower says the folder had no folder where this path's lies when
	// it was read (the command made it): nothing there can have changed
	// meanwhile.
	NoLower bool
}

// Refused is an entry of the upper layer that Tether does not take in (a
// named pipe, a socket, a device), with what it is.
type Refused struct {
	Path string
	What string
}

// Changes is what one command wrote beneath one folder. Changes are in
// the order of the walk: a folder before what it holds, except that what
// a removed folder held comes before the folder itself.
type Changes struct {
	Layer   Layer
	Changes []Change
	Refused []Refused
}

// Rename is a removed file and a created one with the same bytes: shown as
// a move, though it is taken in as a removal and a creation.
type Rename struct{ From, To string }

// overlay's extended attributes, as mounted with userxattr.
const (
	xattrPrefix = "user.overlay."
	xattrOpaque = "user.overlay.opaque"
)

// Read reads what the command wrote to l's upper layer, against its
// folder as it is now. Call it only when every process of the command is
// gone and the overlay is unmounted: a layer in use may be half written.
// Nothing is followed: symbolic links are read as links, in both layers.
func Read(l Layer) (*Changes, error) {
	upper, err := os.OpenRoot(l.Upper)
	if err != nil {
		return nil, fmt.Errorf("overlay: opening the upper layer: %w", err)
	}
	defer upper.Close()
	lower, err := os.OpenRoot(l.Folder)
	if err != nil {
		return nil, fmt.Errorf("overlay: opening the workspace folder: %w", err)
	}
	defer lower.Close()
	r := &reader{l: l, upper: upper, lower: lower, links: map[uint64]*linkGroup{}, out: &Changes{Layer: l}}
	if err := r.walk(".", false, false); err != nil {
		return nil, err
	}
	r.groupLinks()
	return r.out, nil
}

type reader struct {
	l            Layer
	upper, lower *os.Root
	links        map[uint64]*linkGroup
	out          *Changes
}

// linkGroup is the names of one upper inode with more than one link.
type linkGroup struct {
	changed   []int  // indexes in out.Changes
	unchanged string // a name whose file equals the lower one, if any
}

// walk reads the upper folder dir. hidden says the lower folder at dir is
// hidden from the command (an opaque folder, or one beneath it): what the
// lower folder holds and the upper one does not was removed. noLower says
// the folder has nothing at dir at all (the command made it), so nothing
// beneath it is looked up there.
func (r *reader) walk(dir string, hidden, noLower bool) error {
	f, err := r.upper.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		seen[e.Name()] = true
		fi, err := lstatIn(f, r.upper, dir, e.Name())
		if err != nil {
			return err
		}
		if err := r.entry(filepath.Join(dir, e.Name()), fi, hidden, noLower); err != nil {
			return err
		}
	}
	if !hidden {
		return nil
	}
	// The command saw none of the lower folder: what it did not make
	// again is gone.
	lf, err := r.lower.Open(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		return err
	}
	lower, err := lf.ReadDir(-1)
	lf.Close()
	if err != nil {
		return err
	}
	sort.Slice(lower, func(i, j int) bool { return lower[i].Name() < lower[j].Name() })
	for _, e := range lower {
		if !seen[e.Name()] {
			if err := r.removeTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// entry reads one upper entry, fi.
func (r *reader) entry(p string, fi fs.FileInfo, hidden, noLower bool) error {
	var before State
	if !noLower {
		var err error
		if before, err = r.lowerState(p); err != nil {
			return err
		}
	}
	mode := fi.Mode()
	switch {
	case isWhiteout(fi):
		if before.Type != None {
			return r.removeTree(p)
		}
		return nil // made and removed by the command: no trace
	case mode.IsRegular():
		return r.file(p, fi, before, noLower)
	case mode&fs.ModeSymlink != 0:
		target, err := r.upper.Readlink(p)
		if err != nil {
			return err
		}
		after := State{Type: Symlink, Link: target}
		if before.Type == Symlink && before.Link == target {
			return nil // copied up, unchanged
		}
		return r.replace(p, before, Change{Path: p, After: after, Upper: filepath.Join(r.l.Upper, p), NoLower: noLower})
	case mode.IsDir():
		after := State{Type: Dir, Mode: mode & fsatomic.KeptMode}
		opaque := hidden || isOpaque(r.upper, p)
		switch {
		case before.Type == Dir:
			if before.Mode != after.Mode {
				r.add(Change{Path: p, Before: before, After: after})
			}
		default:
			if err := r.replace(p, before, Change{Path: p, After: after, NoLower: noLower}); err != nil {
				return err
			}
			// Nothing of the lower layer lies beneath a folder that
			// replaced something else.
			opaque, noLower = false, true
		}
		return r.walk(p, opaque, noLower)
	}
	r.out.Refused = append(r.out.Refused, Refused{Path: p, What: fsatomic.DescribeType(mode)})
	return nil
}

// replace records c, a new state of p over before. A folder it replaces
// goes first, with all it held.
func (r *reader) replace(p string, before State, c Change) error {
	if before.Type == Dir {
		if err := r.removeTree(p); err != nil {
			return err
		}
		// The removal of the folder itself becomes this change.
		last := &r.out.Changes[len(r.out.Changes)-1]
		last.After, last.Upper = c.After, c.Upper
		return nil
	}
	c.Before = before
	r.add(c)
	return nil
}

// file reads an upper file and keeps it when it differs from the lower one.
func (r *reader) file(p string, fi fs.FileInfo, before State, noLower bool) error {
	after := State{Type: File, Mode: fi.Mode() & fsatomic.KeptMode, Size: fi.Size()}
	c := Change{Path: p, After: after, Upper: filepath.Join(r.l.Upper, p), NoLower: noLower}
	var group *linkGroup
	if ino, n := inode(fi); n > 1 {
		if group = r.links[ino]; group == nil {
			group = &linkGroup{}
			r.links[ino] = group
		}
	}
	if before.Type == File && before.Size == after.Size {
		same, err := r.sameBytes(p)
		if err != nil {
			return err
		}
		if same && before.Mode == after.Mode {
			if group != nil && group.unchanged == "" {
				group.unchanged = p
			}
			return nil // copied up without a change
		}
		c.SameContent = same
	}
	if err := r.replace(p, before, c); err != nil {
		return err
	}
	if group != nil {
		group.changed = append(group.changed, len(r.out.Changes)-1)
	}
	return nil
}

// removeTree records the removal of the lower entry p and, for a folder,
// of everything beneath it first.
func (r *reader) removeTree(p string) error {
	before, err := r.lowerState(p)
	if err != nil || before.Type == None {
		return err
	}
	if before.Type == Dir {
		f, err := r.lower.Open(p)
		if err != nil {
			return err
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if err := r.removeTree(filepath.Join(p, e.Name())); err != nil {
				return err
			}
		}
	}
	r.add(Change{Path: p, Before: before})
	return nil
}

func (r *reader) add(c Change) { r.out.Changes = append(r.out.Changes, c) }

// lowerState is what the folder holds at p now, never following a link.
func (r *reader) lowerState(p string) (State, error) {
	fi, err := r.lower.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return State{}, nil
	case err != nil:
		return State{}, err
	}
	return r.stateOf(p, fi)
}

func (r *reader) stateOf(p string, fi fs.FileInfo) (State, error) {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return State{Type: File, Mode: m & fsatomic.KeptMode, Size: fi.Size()}, nil
	case m.IsDir():
		return State{Type: Dir, Mode: m & fsatomic.KeptMode}, nil
	case m&fs.ModeSymlink != 0:
		target, err := r.lower.Readlink(p)
		if err != nil {
			return State{}, err
		}
		return State{Type: Symlink, Link: target}, nil
	}
	// A pipe, socket or device in the folder: the command's entry replaces
	// something Tether cannot save for undo.
	return State{}, fmt.Errorf("overlay: %s in the workspace is %s, which Tether cannot save for undo", p, fsatomic.DescribeType(m))
}

// sameBytes compares the upper and lower files p, which have one size.
func (r *reader) sameBytes(p string) (bool, error) {
	a, err := openRegular(r.upper, p)
	if err != nil {
		return false, err
	}
	defer a.Close()
	b, err := openRegular(r.lower, p)
	if err != nil {
		return false, err
	}
	defer b.Close()
	return sameReaders(a, b)
}

func sameReaders(a, b io.Reader) (bool, error) {
	const chunk = 256 << 10
	ba, bb := make([]byte, chunk), make([]byte, chunk)
	for {
		na, ea := io.ReadFull(a, ba)
		nb, eb := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		aEnd := ea == io.EOF || ea == io.ErrUnexpectedEOF
		bEnd := eb == io.EOF || eb == io.ErrUnexpectedEOF
		if ea != nil && !aEnd {
			return false, ea
		}
		if eb != nil && !bEnd {
			return false, eb
		}
		if aEnd || bEnd {
			return aEnd && bEnd, nil
		}
	}
}

// openRegular opens the regular file p beneath root, refusing anything
// else that may have taken its place.
func openRegular(root *os.Root, p string) (*os.File, error) {
	f, err := root.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("overlay: %s is %s, not a regular file", p, fsatomic.DescribeType(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// groupLinks marks the hard links the command made: the changed names of
// one inode share a group, and when one name of it is a lower file the
// command left as it was, the others are links to that file.
func (r *reader) groupLinks() {
	id := 0
	inodes := make([]uint64, 0, len(r.links))
	for ino := range r.links {
		inodes = append(inodes, ino)
	}
	sort.Slice(inodes, func(i, j int) bool { return inodes[i] < inodes[j] })
	for _, ino := range inodes {
		g := r.links[ino]
		if len(g.changed) == 0 || (len(g.changed) == 1 && g.unchanged == "") {
			continue
		}
		id++
		for _, i := range g.changed {
			r.out.Changes[i].LinkGroup = id
			r.out.Changes[i].LinkTo = g.unchanged
		}
	}
}

// Renames pairs removed files with created ones of the same bytes, for
// showing them as moves.
func (cs *Changes) Renames() ([]Rename, error) {
	type cand struct {
		i   int
		sum [32]byte
		ok  bool
	}
	var gone, made []*cand
	bySize := map[int64]bool{}
	for i, c := range cs.Changes {
		if c.Before.Type == File && c.After.Type == None {
			gone = append(gone, &cand{i: i})
			bySize[c.Before.Size] = true
		}
	}
	for i, c := range cs.Changes {
		if c.Before.Type == None && c.After.Type == File && bySize[c.After.Size] {
			made = append(made, &cand{i: i})
		}
	}
	if len(made) == 0 {
		return nil, nil
	}
	lower, err := os.OpenRoot(cs.Layer.Folder)
	if err != nil {
		return nil, err
	}
	defer lower.Close()
	hash := func(open func() (*os.File, error)) ([32]byte, error) {
		var sum [32]byte
		f, err := open()
		if err != nil {
			return sum, err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return sum, err
		}
		copy(sum[:], h.Sum(nil))
		return sum, nil
	}
	var out []Rename
	used := map[int]bool{}
	for _, m := range made {
		c := cs.Changes[m.i]
		sum, err := hash(func() (*os.File, error) { return os.Open(c.Upper) })
		if err != nil {
			return nil, err
		}
		for _, g := range gone {
			gc := cs.Changes[g.i]
			if used[g.i] || gc.Before.Size != c.After.Size {
				continue
			}
			if !g.ok {
				if g.sum, err = hash(func() (*os.File, error) { return openRegular(lower, gc.Path) }); err != nil {
					return nil, err
				}
				g.ok = true
			}
			if g.sum == sum {
				used[g.i] = true
				out = append(out, Rename{From: gc.Path, To: c.Path})
				break
			}
		}
	}
	return out, nil
}
