package tool

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	lsp "go.lsp.dev/protocol"

	"github.com/tether-dev/tether/diagnostics"
)

// problemWatch remembers the diagnostics of the files a change is about to
// write, so that afterwards only the problems the change introduced are
// reported, and only from a publish that came after the write.
type problemWatch struct {
	c       *Call
	seq     uint64
	paths   []string
	before  map[string][]lsp.Diagnostic
	written time.Time // just before the write
}

// quietFloor is the least a change waits for diagnostics once their
// language server's pace is known; see problemWatch.wait.
const quietFloor = time.Second

// watchProblems is called just before writing. It returns nil when the
// client sends no diagnostics, or none will come for these files: none
// ever came for files of their kinds (nothing in the editor checks them),
// or they are not open in the editor, had no diagnostics before, and no
// file of their kind ever got diagnostics while closed (most language
// servers check only open files; gopls checks them all). Waiting for them
// would hold every such change for the whole settle time.
func (c *Call) watchProblems(paths []string) *problemWatch {
	st := c.Env.Diagnostics
	if st == nil || !c.Env.Capabilities.Diagnostics || c.Env.Settings.Settle() < 0 {
		return nil
	}
	paths = slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		if !st.Checked(p) {
			return true
		}
		_, seq := st.File(p)
		return seq == 0 && !c.Env.Dirty.MaybeOpen(p) && !st.ChecksClosedFiles(p)
	})
	if len(paths) == 0 {
		return nil
	}
	w := &problemWatch{c: c, seq: st.Seq(), paths: paths, before: map[string][]lsp.Diagnostic{}, written: time.Now()}
	for _, p := range paths {
		w.before[p], _ = st.File(p)
	}
	return w
}

// wait is how long the change waits at most: the settle time, or less
// once a change to files of each kind has been seen to change their
// diagnostics: twice the slowest of those recent latencies, and at least
// quietFloor. A clean edit of a clean file gets no publish at all (the
// editor reports no change from nothing to nothing), so without this
// bound every such edit would wait the whole settle time.
func (w *problemWatch) wait() time.Duration {
	settle := w.c.Env.Settings.Settle()
	var quiet time.Duration
	for _, p := range w.paths {
		slowest, ok := w.c.Env.Diagnostics.SlowestLatency(p)
		if !ok {
			return settle
		}
		quiet = max(quiet, 2*slowest, quietFloor)
	}
	return min(settle, quiet)
}

// report waits for the written files' diagnostics to change after the
// write, up to wait(), and describes the new problems, or says none came.
// The wait ends as soon as every file's diagnostics changed. A publish
// that repeats a file's diagnostics unchanged does not end it: a language
// server often re-sends what it had (its syntax pass, say) before its
// slower checks report; when the wait ends, the last publish after the
// write stands.
func (w *problemWatch) report(ctx context.Context) string {
	if w == nil {
		return ""
	}
	settle := w.wait()
	wctx, cancel := context.WithDeadline(ctx, w.written.Add(settle))
	defer cancel()
	started := time.Now()
	st := w.c.Env.Diagnostics
	latest := map[string][]lsp.Diagnostic{}
	changed := map[string]bool{}
	after := w.seq
	for {
		var pending []string
		for _, p := range w.paths {
			if !changed[p] {
				pending = append(pending, p)
			}
		}
		if len(pending) == 0 {
			break
		}
		fresh := st.WaitFresh(wctx, after, pending)
		next := after
		for p := range fresh {
			d, seq := st.File(p)
			latest[p] = d
			if !sameDiagnostics(w.before[p], d) && !changed[p] {
				changed[p] = true
				st.NoteLatency(p, time.Since(w.written))
			}
			next = max(next, seq)
		}
		if wctx.Err() != nil || next == after {
			break
		}
		after = next
	}
	w.c.Log().Debug("fresh diagnostics", "files", len(w.paths), "published", len(latest), "changed", len(changed), "waited", time.Since(started).Round(time.Millisecond))
	ws := w.c.Env.Workspace
	var ps []diagnostics.Problem
	var silent []string
	for _, p := range w.paths {
		now, ok := latest[p]
		if !ok {
			silent = append(silent, ws.Rel(p))
			continue
		}
		for _, d := range diagnostics.Introduced(w.before[p], now) {
			ps = append(ps, diagnostics.Problem{Path: ws.Rel(p), Diagnostic: d})
		}
	}
	sort.Strings(silent)
	var sb strings.Builder
	switch {
	case len(ps) > 0:
		sb.WriteString("\n\nNew problems the editor reports after this change:\n")
		sb.WriteString(diagnostics.Format(ps, w.c.Budget.OutputChars()/4))
	case len(silent) < len(w.paths):
		sb.WriteString("\n\nThe editor reports no new problems in the changed file.")
	}
	if len(silent) > 0 {
		fmt.Fprintf(&sb, "\n\nThe editor sent no fresh diagnostics for %s within %s; use problems in a moment to check.", strings.Join(silent, ", "), settle)
	}
	return sb.String()
}

// sameDiagnostics reports whether two publishes of a file hold the same
// diagnostics, in any order.
func sameDiagnostics(a, b []lsp.Diagnostic) bool {
	return len(a) == len(b) && len(diagnostics.Introduced(a, b)) == 0
}
