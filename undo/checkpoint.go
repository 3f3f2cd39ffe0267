package undo

import (
	"slices"
	"time"
)

// checkpoint is a journal read back: one request's saved paths and what
// became of them.
type checkpoint struct {
	id      string
	request string
	created time.Time
	// entries are the paths in the order the request first touched them.
	entries []*entry
	byPath  map[string]*entry
	// kept is content undo replaced without knowing whose it was, by path.
	kept map[string]fileState
	// asides are the versions of paths a command wrote that were not
	// applied (the file changed meanwhile), in the order they were kept.
	asides []aside
	// applying is set while a set of changes is being applied, and stays
	// set when the process died before the end: the set was interrupted.
	applying *record
	// undone is set once the checkpoint has been undone.
	undone *record
	// damage, when set, is what of the journal could not be read. A
	// damaged checkpoint is never written to again, short of being undone.
	damage *damage

	// goodLen and size locate the journal's end, for appends and for
	// noticing that another Store appended.
	goodLen, size int64
}

// aside is a command's version of a path, kept instead of applied.
type aside struct {
	path   string
	state  fileState
	reason string
}

// entry is one path of a checkpoint.
type entry struct {
	path  string
	prior fileState
	// wrote is what Tether last left at the path; nil when the request
	// never confirmed a write there (it failed, or the process died first).
	wrote *fileState
	// pending is set while a further change of the path is under way: what
	// is there may be wrote, or Tether's next write not yet recorded.
	pending bool
	// set says the path was saved for a change set (SaveSet).
	set bool
}

// confirmed reports whether cur is what Tether last recorded leaving at
// the path, so undo may replace it without asking whose it is.
func (e *entry) confirmed(cur fileState) bool {
	return e.wrote != nil && cur.same(*e.wrote)
}

// typed reports whether the entry was saved with SaveSet, or for a path
// that held, or was given, a symbolic link or a folder.
func (e *entry) typed() bool {
	return e.set || e.prior.Type != "" || (e.wrote != nil && e.wrote.Type != "")
}

// unconfirmed reports whether Tether may have written the path without
// recording it: the content there cannot be told apart from someone else's.
func (e *entry) unconfirmed() bool { return e.wrote == nil || e.pending }

// build folds a journal's records into a checkpoint; ok is false when the
// journal has no readable beginning, as after a crash while creating it.
func build(recs []record) (*checkpoint, bool) {
	if len(recs) == 0 || recs[0].Kind != kindBegin || recs[0].ID == "" {
		return nil, false
	}
	cp := &checkpoint{
		id:      recs[0].ID,
		request: recs[0].Request,
		created: recs[0].Time,
		byPath:  map[string]*entry{},
		kept:    map[string]fileState{},
	}
	for _, r := range recs[1:] {
		cp.apply(r)
	}
	return cp, true
}

// apply adds one record. Records that make no sense in place (a second
// save of a path, a write for a path never saved) are ignored: the first
// save is the state before the request, and that is what undo must keep.
func (cp *checkpoint) apply(r record) {
	if cp.undone != nil {
		return
	}
	switch r.Kind {
	case kindSave:
		if r.State == nil || cp.byPath[r.Path] != nil {
			return
		}
		e := &entry{path: r.Path, prior: *r.State, set: r.Set}
		cp.entries = append(cp.entries, e)
		cp.byPath[r.Path] = e
	case kindAgain:
		if e := cp.byPath[r.Path]; e != nil {
			e.pending = true
		}
	case kindWrote:
		if e := cp.byPath[r.Path]; e != nil && r.State != nil {
			st := *r.State
			e.wrote, e.pending = &st, false
		}
	case kindDropped:
		if e := cp.byPath[r.Path]; e != nil && e.wrote == nil {
			delete(cp.byPath, r.Path)
			for i, x := range cp.entries {
				if x == e {
					cp.entries = append(cp.entries[:i:i], cp.entries[i+1:]...)
					break
				}
			}
		}
	case kindKept:
		if r.State != nil {
			cp.kept[r.Path] = *r.State
		}
	case kindUndone:
		rr := r
		cp.undone = &rr
	case kindApplying:
		rr := r
		cp.applying = &rr
	case kindApplied:
		cp.applying = nil
	case kindAside:
		if r.State != nil {
			cp.asides = append(cp.asides, aside{path: r.Path, state: *r.State, reason: r.Reason})
		}
	}
}

// damage is what reading a damaged journal lost.
type damage struct {
	// records counts the lines that could not be read.
	records int
	// noBegin says the first record was lost: the request is unknown.
	noBegin bool
	// saves are files whose saved state was in a lost record, as far as
	// the damaged lines still name them: undo cannot put them back.
	saves []string
}

// findDamage tells what the scan of cp's journal lost, nil when nothing.
// A journal is created with its first two records at once, so one without
// a readable beginning, or that lists no change at all, was damaged too.
func findDamage(cp *checkpoint, sc scan, noBegin bool) *damage {
	d := &damage{records: sc.damaged, noBegin: noBegin}
	for _, p := range sc.damagedSaves {
		if cp.byPath[p] == nil && !slices.Contains(d.saves, p) {
			d.saves = append(d.saves, p)
		}
	}
	empty := len(cp.entries) == 0 && len(cp.asides) == 0 && cp.undone == nil
	if d.records == 0 && !noBegin && !empty {
		return nil
	}
	if d.records == 0 {
		d.records = 1 // the journal was cut short: at least one record is gone
	}
	return d
}

// lookup returns path's entry; nil (also on a nil checkpoint) when the
// request has not saved it.
func (cp *checkpoint) lookup(path string) *entry {
	if cp == nil {
		return nil
	}
	return cp.byPath[path]
}

// blobs lists the content this checkpoint needs kept.
func (cp *checkpoint) blobs() []string {
	var out []string
	for _, e := range cp.entries {
		if e.prior.isFile() {
			out = append(out, e.prior.SHA)
		}
	}
	for _, st := range cp.kept {
		if st.isFile() {
			out = append(out, st.SHA)
		}
	}
	for _, a := range cp.asides {
		if a.state.isFile() {
			out = append(out, a.state.SHA)
		}
	}
	return out
}
