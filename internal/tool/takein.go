package tool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/ignore"
	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/protocol"
)

// A sandboxed command writes into overlay layers, never into the
// workspace. When it ends, TakeIn reads what it wrote and takes it in the
// way an edit is taken in: reviewed where it matters, originals saved in
// the request's checkpoint, then applied file by file, each atomically.

// SetCheckpointer is what TakeIn needs of the undo store: a command's
// changes saved as one set (see undo.Store).
type SetCheckpointer interface {
	SaveSet(requestID string, paths []string, what string) error
	WroteSet(requestID string, paths []string) error
	Applied(requestID string) error
	SetAside(requestID, path string, r io.Reader, mode fs.FileMode, why string) error
}

// maxReviewText is the largest file shown as text in a review; larger or
// binary files are shown by their size.
const maxReviewText = 1 << 20

// setItem is one path of a command's change set.
type setItem struct {
	layer overlay.Layer
	ch    overlay.Change
	abs   string // its path in the workspace
	name  string // its name for people and models
	// review says the user must see it first; ignored says it is an
	// ignored output (applied unasked unless reviewed for another reason).
	review, ignored bool
	// held, when set, is why it is not applied (changed meanwhile).
	held string
	// content, when set, replaces what the command wrote (the user kept
	// only some hunks, or edited it).
	content []byte
	// dropped says the user left it out.
	dropped bool
	// keptHunks describes a partial answer, for the model.
	keptHunks string
}

// TakeIn reads what a sandboxed command (command, for titles) wrote into
// set's layers once it and everything it started have ended, and takes it
// in: in plan mode a command that changed files is refused and nothing is
// applied; in dryRun its changes are staged; otherwise what is not ignored
// (and what is sensitive, and every removal of an ignored file) is reviewed
// as one change set where the mode asks, and the rest is applied unasked.
// A file changed in the workspace while the command ran is never
// overwritten: its command's version is kept in the checkpoint. The result
// tells the model what happened, in a few lines; an error is a fault of
// the machine, with a result that says what was applied.
func (c *Call) TakeIn(ctx context.Context, set *overlay.Set, command string) (Result, error) {
	items, refused, err := c.readSet(set)
	if err != nil {
		return Failf("Tether could not read what the command wrote (%v), so none of it was applied: the workspace is as it was before the command. Tell the user.", err), err
	}
	var notes []string
	if len(refused) > 0 {
		notes = append(notes, "Not taken in (Tether takes in files, folders and links only): "+strings.Join(refused, ", ")+".")
	}
	if len(items) == 0 {
		return Result{Content: strings.Join(notes, "\n")}, nil
	}
	switch c.Env.Mode() {
	case protocol.ModePlan:
		c.refused = true
		return Failf("Plan mode is read-only, and this command changed files (%s), so none of its changes were applied: the workspace is as it was. Describe the change in your plan instead.", listNames(items, 6)), nil
	case protocol.ModeDryRun:
		return c.stageSet(items, command, notes)
	}
	c.findHeld(set, items)
	var reviewed []*setItem
	for _, it := range items {
		if it.review && it.held == "" {
			reviewed = append(reviewed, it)
		}
	}
	applyReviewed, answer := true, ""
	if len(reviewed) > 0 {
		v := c.Authorize(ctx, c.setStep(reviewed, command))
		switch {
		case v.Allowed && v.Asked:
			if err := applyFileAnswers(reviewed, v.Answer); err != nil {
				return Failf("the review's answer was not usable (%v), so none of the command's changes were applied: the workspace is as it was.", err), nil
			}
			answer = describeAnswer(reviewed)
		case v.Allowed:
		case v.Answer.Answer == protocol.AnswerSkip:
			applyReviewed, answer = false, "The user skipped the review: none of the reviewed files were changed."
		default:
			msg := "None of the command's changes were applied: the workspace is as it was before it ran."
			if v.Answer.Answer == protocol.AnswerNo {
				msg = "The user declined the command's changes: none were applied, and the workspace is as it was before it ran. Stop and ask the user how they want to proceed."
			} else if v.Refusal.Content != "" {
				msg += " " + v.Refusal.Content
			}
			return Result{Content: joinLines(append(notes, msg)...), IsError: true}, nil
		}
	}
	if err := c.keepHeld(items); err != nil {
		c.Log().Warn("keeping a command's version of a file that changed meanwhile", "err", err)
	}
	var todo []*setItem
	for _, it := range items {
		if it.held != "" || it.dropped || (it.review && !applyReviewed) {
			continue
		}
		todo = append(todo, it)
	}
	res, err := c.applySet(ctx, todo, command)
	res.Content = joinLines(append(append([]string{res.Content, answer}, c.heldNotes(items)...), notes...)...)
	return res, err
}

// readSet reads every layer of set into items, classified.
func (c *Call) readSet(set *overlay.Set) ([]*setItem, []string, error) {
	var items []*setItem
	var refused []string
	for _, l := range set.Layers {
		cs, err := overlay.Read(l)
		if err != nil {
			return nil, nil, err
		}
		m := ignore.New(l.Folder)
		for _, ch := range cs.Changes {
			it := &setItem{layer: l, ch: ch, abs: filepath.Join(l.Folder, ch.Path)}
			it.name = c.Env.Workspace.Rel(it.abs)
			c.classify(it, m)
			items = append(items, it)
		}
		for _, r := range cs.Refused {
			refused = append(refused, c.Env.Workspace.Rel(filepath.Join(l.Folder, r.Path))+" ("+r.What+")")
		}
	}
	return items, refused, nil
}

// classify decides whether an item is reviewed. A path in a git folder is
// git's own record (applied as an ignored output), except its hooks and
// configuration, which can make programs run later outside the sandbox.
// Sensitive paths are always reviewed; so is the removal of anything that
// was there before, ignored or not; an ignored output is not.
func (c *Call) classify(it *setItem, m *ignore.Matcher) {
	rel := filepath.ToSlash(it.ch.Path)
	isDir := it.ch.After.Type == overlay.Dir || (it.ch.After.Type == overlay.None && it.ch.Before.Type == overlay.Dir)
	if inGit, risky := gitPath(rel); inGit {
		it.ignored = true
		it.review = risky
		return
	}
	roots := c.Env.Workspace.Paths()
	sensitive := permission.Sensitive(it.abs, roots) || alsoSensitive(rel)
	it.ignored = m.Ignored(rel, isDir)
	removal := it.ch.Before.Type != overlay.None && it.ch.After.Type != it.ch.Before.Type
	// A folder made is told by what it holds, each reviewed on its own.
	newDir := it.ch.Before.Type == overlay.None && it.ch.After.Type == overlay.Dir
	it.review = sensitive || removal || (!it.ignored && !newDir)
}

// alsoSensitive are paths always reviewed when a command writes them,
// besides permission's list: configuration that makes an agent or the
// editor run programs.
func alsoSensitive(rel string) bool {
	base := strings.ToLower(rel[strings.LastIndex(rel, "/")+1:])
	return base == ".mcp.json"
}

// gitPath reports whether rel lies in a git folder (any ".git" on its
// path, or the .git itself) and whether it is one of the files that make
// programs run: hooks (other than git's samples), configuration, and a
// .git file that points elsewhere.
func gitPath(rel string) (inGit, risky bool) {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		if !strings.EqualFold(p, ".git") {
			continue
		}
		rest := parts[i+1:]
		switch {
		case len(rest) == 0:
			return true, false // the folder itself; a .git file is judged below
		case len(rest) == 1 && (strings.EqualFold(rest[0], "config") || strings.EqualFold(rest[0], "config.worktree")):
			return true, true
		case strings.EqualFold(rest[0], "hooks") && len(rest) > 1 && !strings.HasSuffix(rest[len(rest)-1], ".sample"):
			return true, true
		case strings.EqualFold(rest[0], "modules"):
			// A submodule's git folder: its own config and hooks.
			sub, sRisky := gitPath(".git/" + strings.Join(rest[2:], "/"))
			return true, sub && sRisky && len(rest) > 2
		}
		return true, false
	}
	return false, false
}

// findHeld marks the items whose path changed in the workspace while the
// command ran (by the file system's clock), or has unsaved changes in the
// editor: they are not applied.
func (c *Call) findHeld(set *overlay.Set, items []*setItem) {
	roots := map[string]*os.Root{}
	defer func() {
		for _, r := range roots {
			r.Close()
		}
	}()
	for _, it := range items {
		if c.Env.Dirty.Has(it.abs) {
			it.held = "it has unsaved changes in the editor"
			continue
		}
		if it.ch.After.Type == overlay.Dir && it.ch.Before.Type == overlay.Dir {
			continue // a folder's own times change with what is made in it
		}
		if it.ch.NoLower {
			continue // beneath a folder the workspace did not have when read
		}
		r := roots[it.layer.Folder]
		if r == nil {
			var err error
			if r, err = os.OpenRoot(it.layer.Folder); err != nil {
				it.held = "its workspace folder could not be opened"
				continue
			}
			roots[it.layer.Folder] = r
		}
		if it.ch.Before.Type == overlay.Dir {
			continue // judged by what it holds, each a change of its own
		}
		changed, err := it.layer.ChangedSince(r, it.ch.Path, set.Started)
		if err != nil {
			it.held = "it could not be checked (" + err.Error() + ")"
		} else if changed {
			it.held = "it was changed in the workspace while the command ran"
		}
	}
}

// heldNotes tells the model which files were left alone and where the
// command's version of each went.
func (c *Call) heldNotes(items []*setItem) []string {
	var out []string
	for _, it := range items {
		if it.held == "" {
			continue
		}
		msg := fmt.Sprintf("Not applied: %s, because %s; it is left as it is there.", it.name, it.held)
		if it.ch.After.Type == overlay.File {
			msg += " The command's version is kept in this request's undo checkpoint (the user can see it with Tether: Show Checkpoints)."
		}
		out = append(out, msg)
	}
	return out
}

// keepHeld saves the command's version of each held file in the checkpoint.
func (c *Call) keepHeld(items []*setItem) error {
	sc, _ := c.Env.Checkpoints.(SetCheckpointer)
	if sc == nil {
		return nil
	}
	var errs []error
	for _, it := range items {
		if it.held == "" || it.ch.After.Type != overlay.File {
			continue
		}
		f, err := os.Open(it.ch.Upper)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, sc.SetAside(c.RequestID, it.abs, f, it.ch.After.Mode, it.held))
		f.Close()
	}
	return errors.Join(errs...)
}

// setStep is the review of a change set: one approval of kind edit, its
// files in the order the command left them, each with its own diff and,
// for text, hunks to keep or drop.
func (c *Call) setStep(reviewed []*setItem, command string) Step {
	a := permission.Action{Tool: c.Name, Changes: true}
	roots := c.Env.Workspace.Paths()
	for _, it := range reviewed {
		if permission.Sensitive(it.abs, roots) || alsoSensitive(filepath.ToSlash(it.ch.Path)) {
			a.Sensitive = true
		}
	}
	title := fmt.Sprintf("Apply what `%s` changed (%d %s)", oneLineCommand(command), len(reviewed), nounFor(len(reviewed), "file", "files"))
	req := protocol.ApprovalRequestParams{Title: title, Kind: protocol.ApprovalEdit}
	if len(reviewed) == 1 {
		req.Path = reviewed[0].abs
	}
	// The diffs are read and made only when someone is asked.
	detail := func(req *protocol.ApprovalRequestParams) {
		var diffs []string
		for _, it := range reviewed {
			fc := c.fileChange(it)
			req.Files = append(req.Files, fc)
			diffs = append(diffs, fc.Diff)
		}
		req.Diff = strings.Join(diffs, "")
	}
	return Step{Request: req, Action: a, Always: &permission.Rule{Kind: protocol.ApprovalEdit}, Detail: detail}
}

// fileChange describes one reviewed item for the approval.
func (c *Call) fileChange(it *setItem) protocol.FileChange {
	ch := it.ch
	fc := protocol.FileChange{Path: it.abs}
	name := it.name
	switch {
	case ch.After.Type == overlay.Dir || (ch.After.Type == overlay.None && ch.Before.Type == overlay.Dir):
		fc.Status = "folder"
		switch {
		case ch.After.Type == overlay.None:
			fc.Note = "folder removed"
		case ch.Before.Type == overlay.Dir:
			fc.Note = fmt.Sprintf("folder mode %04o → %04o", uint32(ch.Before.Mode.Perm()), uint32(ch.After.Mode.Perm()))
		case ch.Before.Type != overlay.None:
			fc.Note = fmt.Sprintf("%s replaced by a folder", describeState(ch.Before))
		default:
			fc.Note = "folder made"
		}
		fc.Diff = fmt.Sprintf("# %s: %s\n", QuotePath(name), fc.Note)
		return fc
	case ch.After.Type == overlay.Symlink || ch.Before.Type == overlay.Symlink:
		fc.Status = "link"
		fc.Note = fmt.Sprintf("%s → %s", describeState(ch.Before), describeState(ch.After))
		fc.Diff = fmt.Sprintf("# %s: %s\n", QuotePath(name), fc.Note)
		return fc
	}
	before, bErr := c.readBefore(it)
	after, aErr := readUpper(ch)
	switch {
	case ch.Before.Type == overlay.None:
		fc.Status = "created"
	case ch.After.Type == overlay.None:
		fc.Status = "deleted"
	case ch.SameContent:
		fc.Status = "mode"
	default:
		fc.Status = "modified"
	}
	var modeLine string
	if ch.Before.Type == overlay.File && ch.After.Type == overlay.File && ch.Before.Mode != ch.After.Mode {
		modeLine = fmt.Sprintf("old mode %06o\nnew mode %06o\n", 0o100000|uint32(ch.Before.Mode.Perm()), 0o100000|uint32(ch.After.Mode.Perm()))
	}
	text := bErr == nil && aErr == nil && isText(before) && isText(after)
	if !text {
		size := ch.After.Size
		if ch.After.Type == overlay.None {
			size = ch.Before.Size
		}
		fc.Note = fmt.Sprintf("not shown: %s, %s", map[bool]string{true: "too large", false: "binary"}[bErr == errTooLarge || aErr == errTooLarge], HumanBytes(size))
		fc.Diff = modeLine + fmt.Sprintf("# %s: %s (%s)\n", QuotePath(name), fc.Status, fc.Note)
		return fc
	}
	oldName, newName := QuotePath("a/"+name), QuotePath("b/"+name)
	if ch.Before.Type == overlay.None {
		oldName = "/dev/null"
	}
	if ch.After.Type == overlay.None {
		newName = "/dev/null"
	}
	fc.Diff = modeLine + diff.Unified(oldName, newName, before, after)
	if fc.Diff == "" {
		fc.Diff = fmt.Sprintf("# %s: %s (empty)\n", QuotePath(name), fc.Status)
	}
	o, p := string(before), string(after)
	fc.Original, fc.Proposed = &o, &p
	if ch.After.Type == overlay.File && ch.Before.Type != overlay.Dir {
		fc.Hunks = wireHunks(diff.Hunks(before, after))
	}
	return fc
}

var errTooLarge = errors.New("too large to show")

// readBefore reads what the workspace holds at the item's path, for a review.
func (c *Call) readBefore(it *setItem) ([]byte, error) {
	if it.ch.Before.Type != overlay.File {
		return nil, nil
	}
	if it.ch.Before.Size > maxReviewText {
		return nil, errTooLarge
	}
	root, rel, err := c.Env.Workspace.Confine(it.abs)
	if err != nil {
		return nil, err
	}
	f, err := root.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxReviewText+1))
}

// readUpper reads what the command left at the item's path.
func readUpper(ch overlay.Change) ([]byte, error) {
	if ch.After.Type != overlay.File {
		return nil, nil
	}
	if ch.After.Size > maxReviewText {
		return nil, errTooLarge
	}
	f, err := overlay.OpenUpper(ch.Upper)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxReviewText+1))
}

func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

func describeState(s overlay.State) string {
	switch s.Type {
	case overlay.Symlink:
		return "link to " + s.Link
	case overlay.None:
		return "nothing"
	}
	return "a " + s.Type.String()
}

// applyFileAnswers takes the per-file part of a review's answer.
func applyFileAnswers(reviewed []*setItem, ans protocol.ApprovalRequestResult) error {
	byPath := map[string]*setItem{}
	for _, it := range reviewed {
		byPath[it.abs] = it
	}
	for _, fa := range ans.Files {
		it := byPath[fa.Path]
		if it == nil {
			return fmt.Errorf("it answers for %s, which is not in the change set", fa.Path)
		}
		switch {
		case fa.Skip:
			it.dropped = true
		case fa.Content != nil || fa.Hunks != nil:
			if it.ch.After.Type != overlay.File {
				return fmt.Errorf("it edits %s, which is not a file the command wrote", it.name)
			}
			before, bErr := readLower(it)
			after, aErr := readUpper(it.ch)
			if bErr != nil || aErr != nil {
				return fmt.Errorf("%s cannot be edited in the review: %v", it.name, errors.Join(bErr, aErr))
			}
			if fa.Content != nil {
				it.content = []byte(*fa.Content)
				it.keptHunks = "edited by the user"
				continue
			}
			hunks := diff.Hunks(before, after)
			kept, dropped, err := splitHunks(hunks, fa.Hunks)
			if err != nil {
				return fmt.Errorf("%s: %v", it.name, err)
			}
			if len(kept) == 0 {
				it.dropped = true
				continue
			}
			if len(dropped) > 0 {
				it.content = diff.ApplyHunks(before, hunks, kept)
				it.keptHunks = fmt.Sprintf("kept hunk(s) %s of %d", joinInts(kept), len(hunks))
			}
		}
	}
	return nil
}

func readLower(it *setItem) ([]byte, error) {
	if it.ch.Before.Type != overlay.File {
		return nil, nil
	}
	if it.ch.Before.Size > maxReviewText {
		return nil, errTooLarge
	}
	return os.ReadFile(it.abs)
}

// describeAnswer tells the model what the user kept of a reviewed set.
func describeAnswer(reviewed []*setItem) string {
	var dropped, partial []string
	for _, it := range reviewed {
		switch {
		case it.dropped:
			dropped = append(dropped, it.name)
		case it.keptHunks != "":
			partial = append(partial, it.name+" ("+it.keptHunks+")")
		}
	}
	if len(dropped) == 0 && len(partial) == 0 {
		return "The user reviewed and approved the changes."
	}
	msg := "The user reviewed the changes:"
	if len(partial) > 0 {
		msg += " kept only part of " + strings.Join(partial, ", ") + ";"
	}
	if len(dropped) > 0 {
		msg += " left out " + strings.Join(dropped, ", ") + " (as it was before the command);"
	}
	return strings.TrimSuffix(msg, ";") + ". Read those files again before changing them further."
}

// stageSet keeps a command's file changes as a staged change (dryRun).
// Links, folders and files too large to stage are listed and dropped.
func (c *Call) stageSet(items []*setItem, command string, notes []string) (Result, error) {
	if c.Env.Staging == nil {
		return Failf("dry-run mode keeps changes as staged diffs, but no staging folder is set up here, so the command's changes were dropped. Switch to another permission mode to make changes"), nil
	}
	title := fmt.Sprintf("What `%s` changed", oneLineCommand(command))
	e := staging.Entry{RequestID: c.RequestID, Tool: c.Name, Title: title}
	var diffs, skipped []string
	for _, it := range items {
		ch := it.ch
		fileOnly := (ch.Before.Type == overlay.File || ch.Before.Type == overlay.None) && (ch.After.Type == overlay.File || ch.After.Type == overlay.None)
		if !fileOnly || ch.Before.Size > maxChangeBytes || ch.After.Size > maxChangeBytes {
			if ch.After.Type != overlay.Dir || ch.Before.Type != overlay.None {
				skipped = append(skipped, it.name)
			}
			continue
		}
		before, err := os.ReadFile(it.abs)
		if err != nil && ch.Before.Type == overlay.File {
			skipped = append(skipped, it.name)
			continue
		}
		sc := staging.Change{Path: it.abs, Existed: ch.Before.Type == overlay.File, Before: before}
		if ch.After.Type == overlay.None {
			sc.Kind = staging.Delete
		} else {
			if sc.After, err = os.ReadFile(ch.Upper); err != nil {
				skipped = append(skipped, it.name)
				continue
			}
			sc.Kind = staging.Write
		}
		e.Changes = append(e.Changes, sc)
		diffs = append(diffs, c.fileChange(it).Diff)
	}
	if len(e.Changes) == 0 {
		return Result{Content: joinLines(append(notes, "Dry run: the command's changes ("+listNames(items, 6)+") cannot be staged (links, folders, or files over "+HumanBytes(maxChangeBytes)+") and were dropped; the workspace is unchanged.")...)}, nil
	}
	e.Diff = strings.Join(diffs, "")
	e, err := c.Env.Staging.Add(e)
	if err != nil {
		return Failf("staging the command's changes failed because of a fault on this machine (%v); nothing was written. Tell the user.", err), err
	}
	msg := fmt.Sprintf("Dry run: the command's changes to %d %s were staged as %s, not written; the workspace is unchanged. The user reviews staged changes and applies or drops them (`tether staged apply %s`).", len(e.Changes), nounFor(len(e.Changes), "file", "files"), e.ID, e.ID)
	if len(skipped) > 0 {
		msg += " Not staged (links, folders, or too large): " + strings.Join(skipped, ", ") + "."
	}
	return Result{Title: title, Diff: e.Diff, Content: joinLines(append(notes, msg)...)}, nil
}

// listNames names up to max items, and counts the rest.
func listNames(items []*setItem, max int) string {
	var names []string
	for i, it := range items {
		if i == max {
			names = append(names, fmt.Sprintf("and %d more", len(items)-max))
			break
		}
		names = append(names, it.name)
	}
	return strings.Join(names, ", ")
}

func joinLines(parts ...string) string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, strings.TrimRight(p, "\n"))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

func nounFor(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oneLineCommand shortens a command line for a title.
func oneLineCommand(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = CutUTF8(s[:80]) + "…"
	}
	return s
}

// NotCaptured is what a command's result says where its changes went
// straight to the workspace: the sandbox ran at a level without the
// overlay (level names it, why says why), so they are not in the undo
// checkpoint.
func NotCaptured(level, why string) string {
	msg := "This command ran without Tether's overlay"
	if level != "" {
		msg += " (sandbox level: " + level + ")"
	}
	if why != "" {
		msg += ", because " + why
	}
	return msg + ": whatever it changed went straight to the workspace and is not in this request's undo checkpoint, so Tether: Undo Last Request cannot put it back."
}
