package undo

import (
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/fsatomic"
)

// maxShowBytes bounds the content Show reads into memory for one side of
// one diff; past it the file is described by size only.
const maxShowBytes = 8 << 20

// Show describes checkpoint id ("" means the one Undo("") would undo) as
// unified diffs. Before undo it shows what undo would put back, from the
// files as they are now to how they were before the request, and which
// files it would leave alone. After undo it shows what undo could not put
// back, with the content the checkpoint still holds for each.
func (s *Store) Show(id string) (string, error) {
	var out strings.Builder
	err := s.locked(func() error {
		cp, err := s.pick(id)
		if err != nil {
			return err
		}
		if cp.undone != nil {
			s.showUndone(&out, cp)
			return nil
		}
		fmt.Fprintf(&out, "Checkpoint %s (%s), created %s. Undo would put back:\n",
			cp.id, s.summary(cp), cp.created.Local().Format(time.DateTime))
		if cp.damage != nil {
			fmt.Fprintf(&out, "# DAMAGED: %s.\n", s.damageNote(cp))
		}
		if cp.applying != nil {
			fmt.Fprintf(&out, "# INTERRUPTED: %s.\n", interruptedNote(cp.applying))
		}
		for _, e := range cp.entries {
			st := s.plan(e)
			switch st.act {
			case actNone:
				fmt.Fprintf(&out, "# %s: already as it was before\n", s.display(e.path))
			case actConflict:
				fmt.Fprintf(&out, "# %s: %s\n", s.display(e.path), st.reason)
			case actReplace:
				fmt.Fprintf(&out, "# %s: Tether did not confirm writing what is there now; undo keeps it in the checkpoint before putting the old content back\n", s.display(e.path))
				fallthrough
			default:
				out.WriteString(s.fileDiff(e.path, st.cur, e.prior))
			}
		}
		s.showAsides(&out, cp)
		return nil
	})
	return out.String(), err
}

// showAsides lists the versions of files a command wrote that were not
// applied, each as a diff from what the file holds now.
func (s *Store) showAsides(out *strings.Builder, cp *checkpoint) {
	for _, a := range cp.asides {
		fmt.Fprintf(out, "# %s: the command's version was not applied (%s). It is held here, as a change from what the file holds now:\n", s.display(a.path), a.reason)
		cur, _ := currentState(a.path)
		out.WriteString(s.fileDiff(a.path, cur, a.state))
	}
}

func (s *Store) showUndone(out *strings.Builder, cp *checkpoint) {
	u := cp.undone
	fmt.Fprintf(out, "Checkpoint %s (%s) was undone on %s.\n", cp.id, s.summary(cp), u.Time.Local().Format(time.DateTime))
	if u.Damaged != "" {
		fmt.Fprintf(out, "# DAMAGED when it was undone: %s.\n", u.Damaged)
	}
	defer s.showAsides(out, cp)
	if len(u.Conflicts) == 0 && len(u.Replaced) == 0 {
		out.WriteString("Every file was put back.\n")
		return
	}
	for _, c := range u.Conflicts {
		fmt.Fprintf(out, "# %s was not put back (%s). Its content before the request, still held here:\n", s.display(c.Path), c.Reason)
		if e := cp.byPath[c.Path]; e != nil {
			cur, _ := currentState(c.Path)
			out.WriteString(s.fileDiff(c.Path, cur, e.prior))
		}
	}
	for _, p := range u.Replaced {
		fmt.Fprintf(out, "# %s was put back over content Tether had not confirmed writing. That content, still held here:\n", s.display(p))
		cur, _ := currentState(p)
		out.WriteString(s.fileDiff(p, cur, cp.kept[p]))
	}
}

// fileDiff renders the change from state from (what path holds now) to
// state to (held in the store), headed by git's mode lines when the modes
// differ.
func (s *Store) fileDiff(path string, from, to fileState) string {
	name := s.display(path)
	a, aErr := s.content(path, from, true)
	b, bErr := s.content(path, to, false)
	if aErr != nil || bErr != nil {
		return fmt.Sprintf("# %s: cannot show a diff: %v\n", name, firstErr(aErr, bErr))
	}
	oldName, newName := "a/"+name, "b/"+name
	if !from.Exists {
		oldName = "/dev/null"
	}
	if !to.Exists {
		newName = "/dev/null"
	}
	var sb strings.Builder
	if from.Type != to.Type || from.Type != "" {
		fmt.Fprintf(&sb, "# %s: %s, to become %s\n", name, describeState(from), describeState(to))
	}
	if from.Exists && to.Exists && from.mode() != to.mode() && from.Type == "" && to.Type == "" {
		fmt.Fprintf(&sb, "old mode %06o\nnew mode %06o\n", gitMode(from.mode()), gitMode(to.mode()))
	}
	sb.WriteString(diff.Unified(oldName, newName, a, b))
	if sb.Len() == 0 && from.Exists != to.Exists {
		// An empty file appearing or going has no lines to show.
		if to.Exists {
			fmt.Fprintf(&sb, "# %s: recreate (empty)\n", name)
		} else {
			fmt.Fprintf(&sb, "# %s: remove (empty)\n", name)
		}
	}
	return sb.String()
}

// content returns the bytes of a state: from the path itself when onDisk,
// else from the store.
func (s *Store) content(path string, st fileState, onDisk bool) ([]byte, error) {
	switch {
	case !st.Exists, st.Type == typeDir:
		return nil, nil
	case st.Type == typeSymlink:
		// A link shows as its target, the way git shows one.
		return []byte(st.Link + "\n"), nil
	}
	if st.Size > maxShowBytes {
		return nil, fmt.Errorf("%d bytes is too large to show", st.Size)
	}
	if onDisk {
		f, _, err := fsatomic.OpenRegular(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, maxShowBytes+1))
	}
	return s.blobs.read(st.SHA)
}

// describeState names what a state holds, in words.
func describeState(st fileState) string {
	switch {
	case !st.Exists:
		return "nothing"
	case st.Type == typeDir:
		return fmt.Sprintf("a folder (mode %04o)", uint32(st.mode().Perm()))
	case st.Type == typeSymlink:
		return "a symbolic link to " + st.Link
	}
	return "a file"
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// gitMode writes a regular file's mode the way git's diff headers do.
func gitMode(m fs.FileMode) uint32 {
	u := uint32(0o100000) | uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}
