package undo

import (
	"fmt"
	"strings"
)

// List returns the kept checkpoints, newest first.
func (s *Store) List() ([]Checkpoint, error) {
	var out []Checkpoint
	err := s.locked(func() error {
		cps, err := s.loadAll()
		if err != nil {
			return err
		}
		for _, cp := range cps {
			out = append(out, s.describe(cp))
		}
		return nil
	})
	return out, err
}

func (s *Store) describe(cp *checkpoint) Checkpoint {
	c := Checkpoint{
		ID:        cp.id,
		RequestID: cp.request,
		Created:   cp.created,
		Undone:    cp.undone != nil,
		Summary:   s.summary(cp),
	}
	for _, e := range cp.entries {
		c.Files = append(c.Files, s.display(e.path))
	}
	if cp.applying != nil && cp.undone == nil {
		c.Interrupted = interruptedNote(cp.applying)
	}
	if cp.damage != nil {
		for _, p := range cp.damage.saves {
			c.Files = append(c.Files, s.display(p))
		}
		c.Damaged = s.damageNote(cp)
	}
	return c
}

// damageNote says what a damaged checkpoint lost and what it still holds.
func (s *Store) damageNote(cp *checkpoint) string {
	d := cp.damage
	var b strings.Builder
	fmt.Fprintf(&b, "its record is damaged: %d %s could not be read", d.records, plural(d.records, "entry", "entries"))
	if d.noBegin {
		b.WriteString(", its first among them, so the request it belongs to is unknown")
	}
	if len(d.saves) > 0 {
		names := make([]string, len(d.saves))
		for i, p := range d.saves {
			names[i] = s.display(p)
		}
		fmt.Fprintf(&b, "; undo cannot put back %s", strings.Join(names, ", "))
	}
	if len(cp.entries) > 0 {
		fmt.Fprintf(&b, ". Undo can still put back the %d %s it lists readably; a change recorded in the damaged part cannot be undone", len(cp.entries), plural(len(cp.entries), "file", "files"))
	} else {
		b.WriteString(". Nothing in it can be put back")
	}
	return b.String()
}

// interruptedNote says what a set of changes left when the process
// applying it died.
func interruptedNote(r *record) string {
	what := r.Reason
	if what == "" {
		what = "a set of changes"
	}
	return fmt.Sprintf("Tether stopped while it applied %s (%d %s): each file holds its old or its new content, and undo puts back what was applied", what, r.Count, plural(r.Count, "path", "paths"))
}

// change is one item of a summary: a verb and what it applies to.
type change struct{ verb, what string }

// maxListed is how many changes a summary names before it only counts.
const maxListed = 6

// summary tells in a line what the request did: "edited a.go, created
// b.go, moved c.go to d.go". A move shows as a deletion and a creation of
// the same content, and is named as one.
func (s *Store) summary(cp *checkpoint) string {
	var changes []change
	moved := map[*entry]bool{}
	for _, e := range cp.entries {
		if moved[e] {
			continue
		}
		name := s.display(e.path)
		if e.prior.isDir() || (e.wrote != nil && e.wrote.isDir()) {
			name += "/"
		}
		switch {
		case e.wrote == nil:
			changes = append(changes, change{"touched", name})
		case !e.prior.Exists && e.wrote.Exists:
			if from := movedFrom(cp, e, moved); from != nil {
				changes = append(changes, change{"moved", s.display(from.path) + " to " + s.display(e.path)})
				continue
			}
			changes = append(changes, change{"created", name})
		case e.prior.Exists && !e.wrote.Exists:
			if to := movedTo(cp, e, moved); to != nil {
				changes = append(changes, change{"moved", s.display(e.path) + " to " + s.display(to.path)})
				continue
			}
			changes = append(changes, change{"deleted", name})
		case e.prior.Exists:
			changes = append(changes, change{"edited", name})
		default:
			changes = append(changes, change{"touched", name})
		}
	}
	for _, a := range cp.asides {
		changes = append(changes, change{"set aside", s.display(a.path)})
	}
	if cp.damage != nil {
		if len(changes) == 0 {
			return "damaged: nothing in it can be read"
		}
		return "damaged: " + s.listChanges(changes)
	}
	if len(changes) == 0 {
		return "no files changed"
	}
	return s.listChanges(changes)
}

// listChanges names the changes, or counts them by verb when they are many.
func (s *Store) listChanges(changes []change) string {
	if len(changes) <= maxListed {
		parts := make([]string, len(changes))
		for i, c := range changes {
			parts[i] = c.verb + " " + c.what
		}
		return strings.Join(parts, ", ")
	}
	var verbs []string
	count := map[string]int{}
	for _, c := range changes {
		if count[c.verb] == 0 {
			verbs = append(verbs, c.verb)
		}
		count[c.verb]++
	}
	parts := make([]string, len(verbs))
	for i, v := range verbs {
		parts[i] = fmt.Sprintf("%s %d %s", v, count[v], plural(count[v], "file", "files"))
	}
	return strings.Join(parts, ", ")
}

// movedFrom finds the removed file whose content the created entry e
// received, and marks both as told.
func movedFrom(cp *checkpoint, e *entry, moved map[*entry]bool) *entry {
	for _, o := range cp.entries {
		if o != e && !moved[o] && o.wrote != nil && o.prior.isFile() && !o.wrote.Exists && e.wrote.isFile() && o.prior.SHA == e.wrote.SHA {
			moved[o], moved[e] = true, true
			return o
		}
	}
	return nil
}

// movedTo finds the created file that received the removed entry e's content.
func movedTo(cp *checkpoint, e *entry, moved map[*entry]bool) *entry {
	for _, o := range cp.entries {
		if o != e && !moved[o] && o.wrote != nil && !o.prior.Exists && o.wrote.isFile() && e.prior.isFile() && o.wrote.SHA == e.prior.SHA {
			moved[o], moved[e] = true, true
			return o
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
