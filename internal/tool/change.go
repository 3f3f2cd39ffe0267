package tool

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// ChangeKind is what a Change does to its file: the kinds a staged change
// keeps on disk.
type ChangeKind = staging.Kind

const (
	Write  = staging.Write  // create or replace a file's content
	Delete = staging.Delete // remove a file
	Move   = staging.Move   // rename From to Path, never over an existing file
)

// Change is one file change, computed without touching the disk so that it
// can be previewed, approved, checkpointed and only then applied.
type Change struct {
	Kind ChangeKind
	// Path is the target (for a move, the destination).
	Path workspace.Location
	// From is a move's source.
	From workspace.Location
	// Before is the content the change was computed against; nil with
	// Existed false for a new file. The change is refused if the file no
	// longer holds exactly this when it is applied.
	Before  []byte
	Existed bool
	// BeforeInfo is the file's metadata when Before was read, if it was
	// (Current.Info): a file that still has exactly this metadata when the
	// change is applied is taken to hold Before without reading it again.
	BeforeInfo fs.FileInfo
	// After is the new content of a Write. It is never changed in place:
	// it may share its memory with a string (see write_file).
	After []byte
	// FullyKnown says the agent knows every line of After (it wrote them
	// all, or had read the whole file), for the read record afterwards.
	FullyKnown bool
	// Unseen says the user rewrote After when approving it: the agent has
	// not seen the result, so its read record is dropped.
	Unseen bool
}

// Plan is what a file-changing tool intends: its changes, a title for the
// approval, and the message for the model once applied.
type Plan struct {
	Title   string
	Changes []Change
	// Done is told to the model after the changes are written.
	Done string
}

// fileLocks serialises changes to the same file across sessions, so two
// concurrent edits cannot both pass the stale check and lose one another.
var fileLocks = &pathLocks{m: map[string]*lockEntry{}}

type pathLocks struct {
	mu sync.Mutex
	m  map[string]*lockEntry
}

type lockEntry struct {
	mu   sync.Mutex
	refs int
}

// lock takes the locks for paths in a fixed order and returns the unlock.
func (l *pathLocks) lock(paths []string) func() {
	sort.Strings(paths)
	var held []*lockEntry
	var names []string
	for i, p := range paths {
		if i > 0 && p == paths[i-1] {
			continue
		}
		l.mu.Lock()
		e := l.m[p]
		if e == nil {
			e = &lockEntry{}
			l.m[p] = e
		}
		e.refs++
		l.mu.Unlock()
		e.mu.Lock()
		held = append(held, e)
		names = append(names, p)
	}
	return func() {
		for i, e := range held {
			e.mu.Unlock()
			l.mu.Lock()
			if e.refs--; e.refs == 0 {
				delete(l.m, names[i])
			}
			l.mu.Unlock()
		}
	}
}

// diffOf renders a change as a unified diff with workspace-relative names
// (memory/<name>.md for a project memory), quoted the way git quotes them
// when they hold characters that would break the header.
func (c *Call) diffOf(ch Change) string {
	rel := c.display
	switch ch.Kind {
	case Delete:
		return diff.Unified(QuotePath("a/"+rel(ch.Path)), "/dev/null", ch.Before, nil)
	case Move:
		return fmt.Sprintf("rename from %s\nrename to %s\n", QuotePath(rel(ch.From)), QuotePath(rel(ch.Path)))
	}
	if !ch.Existed {
		return diff.Unified("/dev/null", QuotePath("b/"+rel(ch.Path)), nil, ch.After)
	}
	name := rel(ch.Path)
	return diff.Unified(QuotePath("a/"+name), QuotePath("b/"+name), ch.Before, ch.After)
}

// QuotePath writes a path for a diff header as git does: as it is, unless
// it holds a control character, a double quote or a backslash; then in
// double quotes with C escapes (\n, \t, \", \\, \ooo).
func QuotePath(p string) string {
	needs := false
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			needs = true
			break
		}
	}
	if !needs {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range p {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		default:
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
				for _, x := range []byte(string(r)) {
					fmt.Fprintf(&b, "\\%03o", x)
				}
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// display names a changed file for people and models.
func (c *Call) display(loc workspace.Location) string {
	if c.Env.Memory.Holds(loc.Real) {
		return c.Env.Memory.Display(loc.Real)
	}
	return c.Env.Workspace.Rel(loc.Abs)
}

// inMemory reports whether every change of p is to a project memory.
func (c *Call) inMemory(p *Plan) bool {
	for _, ch := range p.Changes {
		for _, loc := range []workspace.Location{ch.Path, ch.From} {
			if loc.Real != "" && !c.Env.Memory.Holds(loc.Real) {
				return false
			}
		}
	}
	return len(p.Changes) > 0
}

func (c *Call) planDiff(p *Plan) string {
	var parts []string
	for _, ch := range p.Changes {
		parts = append(parts, c.diffOf(ch))
	}
	return strings.Join(parts, "")
}

// action describes a plan to the permission rules. A plan that writes
// project memory is a change inside a confined store, not outside the
// workspace; made after the request read web content, it must ask.
func (c *Call) action(p *Plan) permission.Action {
	a := permission.Action{Tool: c.Name, Changes: true}
	if c.inMemory(p) {
		a.Memory = true
		a.Untrusted = len(c.Untrusted()) > 0
		return a
	}
	roots := append(c.Env.Workspace.Paths(), c.Env.Workspace.WriteRoots()...)
	for _, ch := range p.Changes {
		for _, loc := range []workspace.Location{ch.Path, ch.From} {
			if loc.Real == "" {
				continue
			}
			if !loc.Inside {
				a.Outside = true
			}
			if permission.Sensitive(loc.Real, roots) {
				a.Sensitive = true
			}
		}
	}
	return a
}

// Apply runs a plan through the guardrails every change shares: unsaved
// editor buffers, the permission mode, the user's approval (who may keep
// only some hunks or rewrite the proposal), a last check that nothing
// changed underneath, the undo checkpoint, and an atomic write. In dryRun
// mode the plan is staged instead of written; in a preview it is only
// described.
func (c *Call) Apply(ctx context.Context, p *Plan) (Result, error) {
	if err := c.checkNewNames(p); err != nil {
		return Failf("nothing was written: %v", err).WithStatus(protocol.StatusRefused), nil
	}
	if err := c.refuseDirty(p); err != nil {
		return Failf("nothing was written: %v", err).WithStatus(protocol.StatusRefused), nil
	}
	if srcs := c.Untrusted(); len(srcs) > 0 && c.inMemory(p) {
		p.Title += " (this request read content from outside: " + listSources(srcs) + ")"
	}
	d := c.planDiff(p)
	if c.Env.Mode() == protocol.ModeDryRun {
		if c.Prepare {
			return Result{Title: p.Title, Content: p.Title + " (dry run: it would be staged, not written)", Diff: d}, nil
		}
		return c.stage(p, d)
	}
	v := c.Authorize(ctx, c.changeStep(p, d))
	if !v.Allowed {
		r := v.Refusal
		r.Diff, r.Title = d, p.Title
		return r, nil
	}
	if c.Prepare {
		return Result{Title: p.Title, Content: p.Title, Diff: d, NeedsApproval: v.Asked}, nil
	}
	if v.Asked {
		if r, ok := c.takeAnswer(p, v.Answer); !ok {
			return r, nil
		}
		if len(p.Changes) == 1 && p.Changes[0].Unseen { // the user changed what is written
			d = c.planDiff(p)
		}
	}
	return c.write(ctx, p, d)
}

// listSources names a request's outside sources for a title: the first
// few, and how many more.
func listSources(srcs []string) string {
	const shown = 3
	if len(srcs) <= shown {
		return strings.Join(srcs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(srcs[:shown], ", "), len(srcs)-shown)
}

// changeStep describes a plan for Authorize. For a single file's new
// content the user is also given the hunks, to keep or drop one by one.
func (c *Call) changeStep(p *Plan, d string) Step {
	req := protocol.ApprovalRequestParams{Title: p.Title, Kind: protocol.ApprovalEdit, Diff: d}
	var detail func(*protocol.ApprovalRequestParams)
	if len(p.Changes) == 1 {
		ch := p.Changes[0]
		req.Path = ch.Path.Abs
		if ch.Kind == Write {
			detail = func(req *protocol.ApprovalRequestParams) {
				req.Original, req.Proposed = string(ch.Before), string(ch.After)
				req.Hunks = wireHunks(diff.Hunks(ch.Before, ch.After))
			}
		}
	}
	a := c.action(p)
	if a.Outside {
		req.Kind = protocol.ApprovalOutside
	}
	if c.inMemory(p) {
		req.Kind = protocol.ApprovalMemory
		if a.Untrusted {
			req.Untrusted = c.Untrusted()
		}
	}
	return Step{Request: req, Action: a, Always: &permission.Rule{Kind: req.Kind}, Detail: detail}
}

// wireHunks converts diff hunks to the protocol's form.
func wireHunks(hs []diff.Hunk) []protocol.Hunk {
	out := make([]protocol.Hunk, len(hs))
	for i, h := range hs {
		lines := make([]string, len(h.Lines))
		for j, l := range h.Lines {
			lines[j] = string(l.Kind) + strings.TrimRight(l.Text, "\r\n")
		}
		out[i] = protocol.Hunk{ID: h.ID, OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines, Lines: lines}
	}
	return out
}

// takeAnswer applies what the user did in the approval: kept only some
// hunks, or rewrote the proposal. The model is told exactly what was
// written instead of what it asked for. ok is false when nothing is left
// to write.
func (c *Call) takeAnswer(p *Plan, ans protocol.ApprovalRequestResult) (Result, bool) {
	if len(p.Changes) != 1 || p.Changes[0].Kind != Write {
		return Result{}, true
	}
	ch := &p.Changes[0]
	switch {
	case ans.Content != nil:
		final := []byte(*ans.Content)
		if bytes.Equal(final, ch.After) {
			return Result{}, true
		}
		changed := diff.Unified("your proposal", "what the user approved", ch.After, final)
		ch.After, ch.FullyKnown, ch.Unseen = final, false, true
		p.Done += "\nThe user edited your proposed change before approving it, so the file holds their version. How it differs from what you proposed:\n" +
			CapHeadTail(changed, c.Budget.OutputChars()/4) + "Read the file again before changing it further."
	case ans.Hunks != nil:
		hunks := diff.Hunks(ch.Before, ch.After)
		kept, dropped, err := splitHunks(hunks, ans.Hunks)
		if err != nil {
			return Failf("the approval answer was not usable (%v), so nothing was written", err).WithStatus(protocol.StatusRefused), false
		}
		if len(kept) == 0 {
			return Failf("The user dropped every hunk of this change: %s did not happen and nothing was written. Carry on without it, and do not report it as done.", p.Title).WithStatus(protocol.StatusSkipped), false
		}
		if len(dropped) == 0 {
			return Result{}, true
		}
		ch.After, ch.FullyKnown, ch.Unseen = diff.ApplyHunks(ch.Before, hunks, kept), false, true
		p.Done += fmt.Sprintf("\nThe user kept only part of your change: hunk(s) %s of %d were written and hunk(s) %s were dropped, so those lines are as they were. The diff is what was written. Read the file again before changing it further.",
			joinInts(kept), len(hunks), joinInts(dropped))
	}
	return Result{}, true
}

// splitHunks checks the kept IDs against the hunks and lists the dropped ones.
func splitHunks(hunks []diff.Hunk, keep []int) (kept, dropped []int, err error) {
	want := map[int]bool{}
	for _, id := range keep {
		if id < 1 || id > len(hunks) {
			return nil, nil, fmt.Errorf("it keeps hunk %d, but the change has %d", id, len(hunks))
		}
		want[id] = true
	}
	for _, h := range hunks {
		if want[h.ID] {
			kept = append(kept, h.ID)
		} else {
			dropped = append(dropped, h.ID)
		}
	}
	return kept, dropped, nil
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// checkNewNames refuses to create a file whose name holds a control
// character: the diff the user approves would show it garbled, or as two
// lines.
func (c *Call) checkNewNames(p *Plan) error {
	for _, ch := range p.Changes {
		if ch.Kind == Move || (ch.Kind == Write && !ch.Existed) {
			name := c.Env.Workspace.Rel(ch.Path.Abs)
			if err := workspace.CheckNewName(name); err != nil {
				return Refusef("the new name %s holds a control character (a line break, tab, escape or the like), which would garble the diff the user approves; Tether does not create such names. Choose a name without control characters", QuotePath(name))
			}
		}
	}
	return nil
}

// refuseDirty stops a change to a file the user is editing and has not
// saved: the editor would then hold two versions and one would be lost.
func (c *Call) refuseDirty(p *Plan) error {
	for _, ch := range p.Changes {
		for _, loc := range []string{ch.Path.Real, ch.From.Real} {
			if loc != "" && c.Env.Dirty.Has(loc) {
				return Refusef("%s has unsaved changes in the editor, and writing it now would conflict with them. Ask the user to save (or revert) it, then read it again", c.Env.Workspace.Rel(loc))
			}
		}
	}
	return nil
}

// write applies an authorised plan: lock, compare, checkpoint, write. Then,
// outside the locks, it waits briefly for the editor's fresh diagnostics.
// A refusal found at the last moment (the file moved on, its owner cannot
// be kept) is a Result; a fault of the disk or the undo store is an error,
// with a Result that says what was and was not written.
func (c *Call) write(ctx context.Context, p *Plan, d string) (Result, error) {
	ws := c.Env.Workspace
	var keys, written []string
	for _, ch := range p.Changes {
		keys = append(keys, ws.Key(ch.Path.Real))
		switch ch.Kind {
		case Move:
			keys = append(keys, ws.Key(ch.From.Real))
			written = append(written, ch.Path.Real)
		case Write:
			written = append(written, ch.Path.Real)
		}
	}
	unlock := fileLocks.lock(keys)
	for _, ch := range p.Changes {
		if err := verifyUnchanged(c.confine, ch); err != nil {
			unlock()
			if IsRefusal(err) {
				return Failf("nothing was written: %v", err).WithStatus(protocol.StatusRefused), nil
			}
			name := c.display(ch.Path)
			return Result{Content: fmt.Sprintf("Tether failed: checking %s before writing it failed because of a fault on this machine, not in your call (%v), so nothing was written. Tell the user.", name, err), IsError: true, Diff: d, Status: protocol.StatusFailed},
				fmt.Errorf("checking %s before writing it: %w", name, err)
		}
	}
	if err := ctx.Err(); err != nil {
		unlock()
		return Failf("cancelled before writing; nothing was changed").WithStatus(protocol.StatusRefused), nil
	}
	if c.inMemory(p) {
		written = nil // the editor checks no memory file
	}
	watch := c.watchProblems(written)
	for i, ch := range p.Changes {
		if err := c.applyOne(ch); err != nil {
			unlock()
			// A change before this one may have been written: the status
			// says the call did not do what it was asked, the message says
			// what it did.
			if msg, ok := c.refusal(p, i, err); ok {
				return Result{Content: msg, IsError: true, Diff: d, Status: protocol.StatusRefused}, nil
			}
			return Result{Content: c.faultReport(p, i, err), IsError: true, Diff: d, Status: protocol.StatusFailed}, err
		}
		if ch.Kind != Delete {
			// Who wrote it, for another agent's stale-file refusal.
			if fi, err := os.Stat(ch.Path.Real); err == nil {
				c.Env.Changes.noteWrite(ch.Path.Real, c, p.Title, fi)
			}
		}
	}
	unlock()
	return Result{Content: p.Done + watch.report(ctx), Diff: d, Title: p.Title, Status: protocol.StatusWritten}, nil
}

// faultReport tells the model what a fault while writing change i of p
// left behind: the changes before it were written, those after it were
// not, and it was not made, unless the fault came after its rename (the
// folder could not be synced), when it was.
func (c *Call) faultReport(p *Plan, i int, err error) string {
	name := c.display(p.Changes[i].Path)
	var msg string
	if fsatomic.Done(err) {
		msg = fmt.Sprintf("Tether could not finish cleanly: %s was changed as asked, but the disk did not confirm that the change is safely stored (%v): the file holds the new content now, and a power cut could still take it back. The change is in the undo checkpoint.", name, err)
	} else {
		msg = fmt.Sprintf("Tether failed: writing %s failed because of a fault on this machine, not in your call (%v), so %s was not changed.", name, err, name)
	}
	return c.around(p, i, msg) + " Tell the user."
}

// around adds to msg, about change i of p, which changes of the plan were
// made before it and which were not tried after it.
func (c *Call) around(p *Plan, i int, msg string) string {
	if i > 0 {
		var done []string
		for _, ch := range p.Changes[:i] {
			done = append(done, c.display(ch.Path))
		}
		msg += " These were written before it: " + strings.Join(done, ", ") + "; undo puts them back."
	}
	if i < len(p.Changes)-1 {
		var left []string
		for _, ch := range p.Changes[i+1:] {
			left = append(left, c.display(ch.Path))
		}
		msg += " These were not changed: " + strings.Join(left, ", ") + "."
	}
	return msg
}

// refusal says what to do about a change the file itself does not allow:
// one that would lose the file's owner, mode or attributes, a read-only
// file, a file the process may not replace. These are not faults of the
// machine; nothing of that change was made.
func (c *Call) refusal(p *Plan, i int, err error) (string, bool) {
	name := c.display(p.Changes[i].Path)
	var me *fsatomic.MetadataError
	var msg string
	switch {
	case errors.As(err, &me):
		msg = fmt.Sprintf("Tether did not change %s: the new file could not keep the old one's %s (%v). Tether replaces a file only when the replacement keeps its owner, group, mode bits and extended attributes, so nothing was written. Tell the user: they can change the file themselves, or make it theirs (for example with chown) so that Tether may.", name, me.What, me.Err)
	case errors.Is(err, fsatomic.ErrReadOnly):
		msg = ReadOnlyAdvice(name)
	case p.Changes[i].Kind == Move && errors.Is(err, fsatomic.ErrExists):
		msg = fmt.Sprintf("%s appeared while this change waited, and move_file never overwrites, so nothing was moved. Choose another name, or read it and delete it first if it should go.", name)
	case errors.Is(err, fs.ErrPermission):
		msg = fmt.Sprintf("Tether may not change %s (%v): the file or its folder does not allow it (their permissions, or a flag such as immutable or append-only). Nothing was written. Tell the user.", name, err)
	default:
		return "", false
	}
	return c.around(p, i, msg), true
}

// ReadOnlyAdvice is the refusal of a change to a read-only file, with what
// the user can do to allow it.
func ReadOnlyAdvice(name string) string {
	how := "make it writable (chmod u+w " + name + ")"
	if runtime.GOOS == "windows" {
		how = "clear its read-only attribute (attrib -r " + name + ", or the file's Properties)"
	}
	return fmt.Sprintf("%s is read-only, and Tether does not change read-only files, so nothing was written. If it should change, the user can %s and then ask again; do not try to work around it.", name, how)
}

// confine returns the opened folder real lies beneath, and real's path in
// it: the project's memory folder for a memory file, else its workspace
// folder. Every write goes through it, so it stays there at the moment of
// the system call.
func (c *Call) confine(real string) (*os.Root, string, error) {
	if c.Env.Memory.Holds(real) {
		return c.Env.Memory.Confine(real)
	}
	return c.Env.Workspace.Confine(real)
}

// verifyUnchanged refuses a change whose file moved on since it was planned
// (the user typed while the approval was open, another tool wrote it).
// What it reads, it reads beneath the folder confine opens. A fault of the
// file system met on the way is returned as it is, not as a refusal.
func verifyUnchanged(confineIn func(real string) (*os.Root, string, error), ch Change) error {
	confine := func(real string) (*os.Root, string, error) {
		root, rel, err := confineIn(real)
		if errors.Is(err, workspace.ErrOutside) {
			return nil, "", Refusef("%s is outside the workspace folders; Tether only changes files inside them", real)
		}
		return root, rel, err
	}
	if ch.Kind == Move {
		root, rel, err := confine(ch.Path.Real)
		if err != nil {
			return err
		}
		if _, err := root.Lstat(rel); err == nil {
			return Refusef("%s already exists; move_file never overwrites", ch.Path.Abs)
		}
		fromRoot, fromRel, err := confine(ch.From.Real)
		if err != nil {
			return err
		}
		// A move keeps the content; only the source's presence matters.
		switch fi, err := fromRoot.Lstat(fromRel); {
		case errors.Is(err, fs.ErrNotExist):
			return Refusef("%s was removed while this change waited; read the folder again", ch.From.Abs)
		case err != nil:
			return FileTrouble("check", ch.From.Abs, err)
		case !fi.Mode().IsRegular():
			return Refusef("%s is no longer a regular file; read the folder again", ch.From.Abs)
		}
		return nil
	}
	root, rel, err := confine(ch.Path.Real)
	if err != nil {
		return err
	}
	// The file as the change found it, not written since (same file, size
	// and times): no need to read it whole a second time. A write within
	// the same clock tick as the first read is not told apart, as it is
	// not when it comes between this check and the write.
	if ch.Existed && ch.BeforeInfo != nil {
		if fi, err := root.Lstat(rel); err == nil && fsatomic.SameVersion(ch.BeforeInfo, fi) {
			return nil
		}
	}
	cur, _, err := fsatomic.ReadFileIn(root, rel, maxChangeBytes+1)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if ch.Existed {
			return Refusef("%s was removed while this change waited; read the folder again", ch.Path.Abs)
		}
		return nil
	case err != nil:
		return FileTrouble("read", ch.Path.Abs, err)
	case !ch.Existed:
		return Refusef("%s was created by someone else while this change waited; read it first", ch.Path.Abs)
	case !bytes.Equal(cur, ch.Before):
		return Refusef("%s changed on disk while this change waited (the user or another tool wrote it); read it again and redo the edit", ch.Path.Abs)
	}
	return nil
}

func (c *Call) checkpoint(path string) error {
	if c.Env.Checkpoints == nil {
		return nil
	}
	if err := c.Env.Checkpoints.Save(c.RequestID, path); err != nil {
		return fmt.Errorf("saving the undo checkpoint: %w", err)
	}
	return nil
}

// wroteContent is implemented by a Checkpointer that can record a file
// Tether has just written whole from the bytes it wrote and their
// SHA-256, instead of reading them back from the disk and hashing them.
type wroteContent interface {
	WroteContent(requestID, path string, data []byte, sum [sha256.Size]byte) error
}

// contentSum hashes what a change is about to write for the undo store,
// meanwhile: on a goroutine of its own, so that the hashing runs while
// the write waits for the disk. It returns nil where the store reads the
// file back instead.
func (c *Call) contentSum(data []byte) <-chan [sha256.Size]byte {
	if _, ok := c.Env.Checkpoints.(wroteContent); !ok || data == nil {
		return nil
	}
	sum := make(chan [sha256.Size]byte, 1)
	go func() { sum <- sha256.Sum256(data) }()
	return sum
}

// wrote records what Tether left at path; data, when not nil, is what it
// has just written there, whole, and sum its hash from contentSum.
func (c *Call) wrote(path string, data []byte, sum <-chan [sha256.Size]byte) {
	if c.Env.Checkpoints == nil {
		return
	}
	var err error
	if w, ok := c.Env.Checkpoints.(wroteContent); ok && data != nil && sum != nil {
		err = w.WroteContent(c.RequestID, path, data, <-sum)
	} else {
		err = c.Env.Checkpoints.Wrote(c.RequestID, path)
	}
	if err != nil {
		c.Log().Warn("recording what was written for undo", "path", path, "err", err)
	}
}

// abandon tells the undo store that the change it saved paths for did not
// happen, so the checkpoint lists no file that was not changed.
func (c *Call) abandon(paths ...string) {
	if c.Env.Checkpoints == nil {
		return
	}
	for _, p := range paths {
		if err := c.Env.Checkpoints.Abandon(c.RequestID, p); err != nil {
			c.Log().Warn("dropping an undo entry for a change that did not happen", "path", p, "err", err)
		}
	}
}

// applyOne makes one change, every system call of it beneath the workspace
// folder's os.Root, so that a folder swapped for a link to a place outside,
// at any moment, makes it fail rather than write there. A change that
// fails leaves nothing of itself: the folders it made are removed again
// and its undo entry is dropped. An error for which fsatomic.Done holds
// means the change was made but not confirmed durable.
func (c *Call) applyOne(ch Change) error {
	root, rel, err := c.confine(ch.Path.Real)
	if err != nil {
		return err
	}
	switch ch.Kind {
	case Write:
		if err := c.checkpoint(ch.Path.Real); err != nil {
			return err
		}
		sum := c.contentSum(ch.After)
		created, err := fsatomic.MkdirAllIn(root, filepath.Dir(rel), 0o755)
		if err == nil {
			err = fsatomic.WriteFileIn(root, rel, ch.After, 0o644)
		}
		if !fsatomic.Done(err) {
			if sum != nil {
				<-sum // no goroutine outlives the call
			}
			fsatomic.RemoveCreated(root, created)
			c.abandon(ch.Path.Real)
			return err
		}
		c.wrote(ch.Path.Real, ch.After, sum)
		if fi, serr := root.Stat(rel); serr == nil && !ch.Unseen {
			c.Session.AfterWrite(ch.Path.Real, fi, ch.After, textfile.CountLines(ch.After), ch.FullyKnown)
		} else {
			c.Session.Forget(ch.Path.Real)
		}
		return err
	case Delete:
		if err := c.checkpoint(ch.Path.Real); err != nil {
			return err
		}
		err := fsatomic.RemoveIn(root, rel)
		if !fsatomic.Done(err) {
			c.abandon(ch.Path.Real)
			return err
		}
		c.wrote(ch.Path.Real, nil, nil)
		c.Session.Forget(ch.Path.Real)
		return err
	case Move:
		fromRoot, fromRel, err := c.confine(ch.From.Real)
		if err != nil {
			return err
		}
		if err := c.checkpoint(ch.From.Real); err != nil {
			return err
		}
		if err := c.checkpoint(ch.Path.Real); err != nil {
			c.abandon(ch.From.Real)
			return err
		}
		created, err := fsatomic.MkdirAllIn(root, filepath.Dir(rel), 0o755)
		if err == nil {
			err = fsatomic.RenameNoReplaceIn(fromRoot, fromRel, root, rel)
		}
		if !fsatomic.Done(err) {
			fsatomic.RemoveCreated(root, created)
			c.abandon(ch.From.Real, ch.Path.Real)
			return err
		}
		c.wrote(ch.From.Real, nil, nil)
		c.wrote(ch.Path.Real, nil, nil)
		if fi, serr := root.Stat(rel); serr == nil {
			c.Session.Moved(ch.From.Real, ch.Path.Real, fi)
		}
		return err
	}
	return nil
}
