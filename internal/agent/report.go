package agent

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tether-dev/tether/internal/diff"
)

// FileChange is one file a child changed, summed over its calls.
type FileChange struct {
	// Path is relative to the workspace, as the diffs name it; From is a
	// moved file's old path.
	Path string
	From string
	// Kind is "created", "deleted", "moved" or "changed".
	Kind  string
	Stats diff.Stats
}

func (c FileChange) String() string {
	switch c.Kind {
	case "moved":
		return fmt.Sprintf("%s (moved from %s)", c.Path, c.From)
	case "deleted":
		return fmt.Sprintf("%s (deleted, %s)", c.Path, c.Stats)
	case "created":
		return fmt.Sprintf("%s (created, %s)", c.Path, c.Stats)
	}
	return fmt.Sprintf("%s (%s)", c.Path, c.Stats)
}

// changeSet sums the diffs of a child's changes, per file.
type changeSet struct {
	order []string
	m     map[string]*FileChange
}

func (s *changeSet) file(path, kind string) *FileChange {
	if s.m == nil {
		s.m = map[string]*FileChange{}
	}
	fc := s.m[path]
	if fc == nil {
		fc = &FileChange{Path: path, Kind: kind}
		s.m[path] = fc
		s.order = append(s.order, path)
	} else if fc.Kind == "created" && kind == "deleted" {
		fc.Kind = "deleted"
	} else if fc.Kind == "changed" && kind != "changed" {
		fc.Kind = kind
	}
	return fc
}

// add reads a unified diff as the change pipeline writes it: per file a
// "--- a/x" / "+++ b/x" pair (or /dev/null for a new or deleted file) and
// its hunks, or a "rename from" / "rename to" pair for a move.
func (s *changeSet) add(d string) {
	var cur *FileChange
	var from, oldName string
	for _, line := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(line, "rename from "):
			from = strings.TrimPrefix(line, "rename from ")
		case strings.HasPrefix(line, "rename to ") && from != "":
			fc := s.file(strings.TrimPrefix(line, "rename to "), "moved")
			fc.From, from, cur = from, "", nil
		case strings.HasPrefix(line, "--- "):
			oldName, cur = strings.TrimPrefix(line, "--- "), nil
		case strings.HasPrefix(line, "+++ "):
			newName := strings.TrimPrefix(line, "+++ ")
			switch {
			case newName == "/dev/null":
				cur = s.file(strings.TrimPrefix(oldName, "a/"), "deleted")
			case oldName == "/dev/null":
				cur = s.file(strings.TrimPrefix(newName, "b/"), "created")
			default:
				cur = s.file(strings.TrimPrefix(newName, "b/"), "changed")
			}
		case cur == nil || strings.HasPrefix(line, "@@") || strings.HasPrefix(line, `\`):
		case strings.HasPrefix(line, "+"):
			cur.Stats.Added++
		case strings.HasPrefix(line, "-"):
			cur.Stats.Removed++
		}
	}
}

// list returns the changes in the order the files were first changed.
func (s *changeSet) list() []FileChange {
	out := make([]FileChange, 0, len(s.order))
	for _, p := range s.order {
		out = append(out, *s.m[p])
	}
	return out
}

// Report is what the parent's model reads: how the child ended, its final
// message, then the files it read and changed.
func (o Outcome) Report() string {
	var b strings.Builder
	what := fmt.Sprintf("The %s sub-agent", o.Mode)
	effort := fmt.Sprintf("%d model turn%s and %d tool call%s", o.Turns, plural(o.Turns), o.Calls, plural(o.Calls))
	switch {
	case o.Cancelled:
		fmt.Fprintf(&b, "%s was cancelled after %s; it stopped with its tools.\n", what, effort)
	case o.Stopped != "":
		fmt.Fprintf(&b, "%s did not finish: %s. It took %s.\n", what, o.Stopped, effort)
	default:
		fmt.Fprintf(&b, "%s finished after %s.\n", what, effort)
	}
	switch {
	case o.Final != "" && o.Finished():
		b.WriteString("\nIts answer:\n" + strings.TrimRight(o.Final, "\n") + "\n")
	case o.Final != "":
		b.WriteString("\nIts last message:\n" + strings.TrimRight(o.Final, "\n") + "\n")
	default:
		b.WriteString("\nIt wrote no message.\n")
	}
	if len(o.Read) > 0 {
		sort.Strings(o.Read)
		b.WriteString("\nFiles it read: " + strings.Join(o.Read, ", ") + "\n")
	}
	if len(o.Changed) > 0 {
		b.WriteString("\nFiles it changed (one undo of this request puts them back with yours):\n")
		for _, c := range o.Changed {
			b.WriteString("- " + c.String() + "\n")
		}
	} else if o.Mode == Work {
		b.WriteString("\nIt changed no files through Tether's file tools.\n")
	}
	if !o.Finished() && !o.Cancelled {
		b.WriteString("\nIts work is unfinished: check what it did, then carry on yourself or start a sub-agent with a narrower task.\n")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
