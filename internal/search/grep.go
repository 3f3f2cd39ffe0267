package search

import (
	"bytes"
	"context"
	"strconv"
	"strings"
)

// Mode is what a content search reports.
type Mode string

const (
	// Lines reports the matching lines (and their context), path:line:text.
	Lines Mode = "content"
	// FilesWithMatches reports the paths of the files that match.
	FilesWithMatches Mode = "files_with_matches"
	// Counts reports each matching file's path and its count of matching lines.
	Counts Mode = "count"
)

// Modes lists the modes in the order they are documented.
var Modes = []Mode{Lines, FilesWithMatches, Counts}

// GrepQuery is one content search.
type GrepQuery struct {
	// Rg is the ripgrep binary.
	Rg string
	// Dir is ripgrep's working folder; paths under it come out relative.
	Dir string
	// Root is the file or folder to search, relative to Dir or absolute;
	// "" means Dir.
	Root string
	// Pattern is a regular expression in ripgrep's (Rust) syntax.
	Pattern string
	// Glob, when set, filters files by their path relative to Root.
	Glob       *Glob
	IgnoreCase bool
	// Multiline lets a match span lines, with . matching a line break too.
	Multiline bool
	// Before and After are how many lines to show before and after each
	// match (Lines mode).
	Before, After int
	// Mode is what to report; "" means Lines.
	Mode Mode
	// Offset is how many output units (lines, or files in the other
	// modes) of the sorted answer to skip: the page starts after them.
	Offset int
	// MaxLines bounds the output units of the page: lines, matches and
	// context alike, or files.
	MaxLines int
	// MaxBytes bounds the text of the page.
	MaxBytes int
	// MaxColumns cuts longer lines to a preview of that many bytes.
	MaxColumns int
}

func (q GrepQuery) mode() Mode {
	if q.Mode == "" {
		return Lines
	}
	return q.Mode
}

// context reports whether the output has context lines, whose groups
// are split by "--".
func (q GrepQuery) context() bool { return q.mode() == Lines && (q.Before > 0 || q.After > 0) }

// GrepResult is what a search found: one page of the answer, sorted by
// path.
type GrepResult struct {
	// Text holds "path:line:text" lines; context lines read
	// "path-line-text" and separate groups are split by "--". In the other
	// modes it holds "path" or "path:count" lines. Files come in path order.
	Text string
	// Lines counts the output units in Text (lines, or files), separators
	// aside.
	Lines int
	// Stop says why the page ends: Complete when it holds the rest of the
	// answer.
	Stop Stop
	// Total counts the output units of the whole answer; with AtLeast set
	// it is a lower bound (the answer was too large to count).
	Total   int
	AtLeast bool
	// Matches counts the matching lines of the whole answer and Files its
	// files, when Total is exact.
	Matches, Files int
	// Warnings is ripgrep's complaint about files it could not read, when
	// it found matches anyway.
	Warnings string
}

// maxPathBytes leaves room for a long path in front of a cut line.
const maxPathBytes = 4096

// MaxScan is how many output units Grep reads from ripgrep's parallel
// search before it stops counting: past it, the search runs again on one
// thread in path order and stops at the page's end, so a pattern that
// matches everywhere costs no more than the page asked for.
const MaxScan = 5000

// maxKeep bounds the units kept while counting: a page further than this
// into the answer is read in path order instead, keeping only the page.
const maxKeep = 10_000

// GrepArgs is the ripgrep command line for q, without the binary. It is
// exported so that benchmarks can run ripgrep exactly as Grep does.
func GrepArgs(q GrepQuery) []string { return grepArgs(q, false) }

// grepArgs is the command line; sorted makes ripgrep search one file at a
// time in path order (--sort runs it on one thread).
func grepArgs(q GrepQuery, sorted bool) []string {
	// A NUL after the path keeps a path with ':' or '-' in it from being
	// misread.
	args := append(baseArgs(), "--null")
	switch q.mode() {
	case FilesWithMatches:
		args = append(args, "--files-with-matches")
	case Counts:
		args = append(args, "--count", "--with-filename")
	default:
		args = append(args, "--line-number", "--with-filename", "--no-heading",
			"--max-columns", strconv.Itoa(max(q.MaxColumns, 1)), "--max-columns-preview")
		if q.Before > 0 {
			args = append(args, "--before-context", strconv.Itoa(q.Before))
		}
		if q.After > 0 {
			args = append(args, "--after-context", strconv.Itoa(q.After))
		}
	}
	if sorted {
		args = append(args, "--sort", "path")
	}
	if q.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if q.Multiline {
		args = append(args, "--multiline", "--multiline-dotall")
	}
	args = append(args, q.Glob.rgArgs()...)
	args = append(args, excludeGit...)
	return append(args, "--regexp", q.Pattern, "--", searchRoot(q.Dir, q.Root, q.Glob))
}

// Grep runs the search and returns the page of its answer that q asks
// for, the answer sorted by path (the order of ripgrep's --sort path).
//
// Ripgrep searches files in parallel and prints each file's lines
// together, in whatever order its threads finish. Grep reads it to the
// end, keeping only the first units in path order (memory stays bounded
// by the page), so that a page is the same every time, pages join up, and
// the total is known. When the answer holds more than MaxScan units, or
// the page lies far into it, ripgrep is run again in path order on one
// thread and stopped as soon as the page is full and one more unit shows
// there is more; the total is then a lower bound.
//
// Errors: ErrNoRipgrep (wrapped) when ripgrep cannot run, *RgError when it
// rejects the search (a bad regex), ctx.Err() when cancelled.
func Grep(ctx context.Context, q GrepQuery) (GrepResult, error) {
	root := q.Root
	if root == "" {
		root = "."
	}
	r := grepReader{q: q, root: root}
	if q.Offset+q.MaxLines <= maxKeep {
		res, o, err := r.counted(ctx)
		if err != nil || !o.stopped {
			return res, r.finish(res, o, err)
		}
	}
	res, o, err := r.ordered(ctx)
	if res.AtLeast {
		res.Total = max(res.Total, r.scanned)
	}
	return res, r.finish(res, o, err)
}

// finish turns ripgrep's exit into Grep's error, keeping its complaint as
// a warning when it found something anyway.
func (r *grepReader) finish(res GrepResult, o outcome, err error) error {
	switch {
	case err != nil:
		return err
	case o.stopped, o.code == 0, o.code == 1:
	case o.code == 2 && res.Total > 0:
	case o.code == 2 && noFilesSearched(o.stderr):
		// The glob's file type matched no file at all.
	default:
		return &RgError{Code: o.code, Stderr: trimStderr(o.stderr)}
	}
	return nil
}

// grepReader reads ripgrep's records for one query.
type grepReader struct {
	q    GrepQuery
	root string

	lastPath  string
	lastAllow bool
	// scanned is how many units the parallel search had counted when it
	// was stopped at MaxScan.
	scanned int
}

// unit is one record of ripgrep's output as Grep shows it: a line of a
// file (or, in the other modes, the file itself), or a group separator.
type unit struct {
	path, text string
	sep        bool // "--" between groups of context
	match      bool // a matching line, not context
	count      int  // the file's matching lines (Counts)
}

// delim is what ends a record: a NUL after each path (-l), else a newline.
func (r *grepReader) delim() byte {
	if r.q.mode() == FilesWithMatches {
		return 0
	}
	return '\n'
}

func (r *grepReader) maxRecord() int { return max(r.q.MaxColumns, 1) + maxPathBytes + 64 }

// parse reads one record; ok is false for a record of a file the glob
// leaves out.
func (r *grepReader) parse(rec []byte) (u unit, ok bool) {
	switch r.q.mode() {
	case FilesWithMatches:
		p := displayPath(string(rec))
		return unit{path: p, text: p, match: true}, r.allowed(p)
	case Counts:
		path, n, _ := bytes.Cut(rec, []byte{0})
		p := displayPath(string(path))
		count, _ := strconv.Atoi(string(n))
		return unit{path: p, text: p + ":" + string(n), match: true, count: count}, r.allowed(p)
	}
	if string(rec) == "--" {
		return unit{sep: true}, true
	}
	u = r.format(rec)
	return u, r.allowed(u.path)
}

// format reads "path\0N:text" (a match) or "path\0N-text" (context) and
// gives the path and the "path:N:text" / "path-N-text" line. A record
// without a NUL is one of ripgrep's notices, such as "f.bin: binary file
// matches (…)", kept as it is.
func (r *grepReader) format(rec []byte) unit {
	nul := bytes.IndexByte(rec, 0)
	if nul < 0 {
		s := string(rec)
		p, note, found := strings.Cut(s, ": ")
		if !found {
			return unit{path: displayPath(p), text: displayPath(s), match: true}
		}
		return unit{path: displayPath(p), text: displayPath(p) + ": " + note, match: true}
	}
	path := displayPath(string(rec[:nul]))
	rest := rec[nul+1:]
	sep := byte(':')
	if i := bytes.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		sep = rest[i]
	}
	var b strings.Builder
	b.Grow(len(path) + 1 + len(rest))
	b.WriteString(path)
	b.WriteByte(sep)
	b.Write(rest)
	return unit{path: path, text: b.String(), match: sep == ':'}
}

// allowed applies the glob, remembering the last answer: a file's lines
// come together.
func (r *grepReader) allowed(path string) bool {
	if r.q.Glob == nil {
		return true
	}
	if path != r.lastPath {
		r.lastPath, r.lastAllow = path, r.q.Glob.Allows(relTo(r.root, path))
	}
	return r.lastAllow
}

// block is one file's units, in ripgrep's order; n counts them,
// separators aside.
type block struct {
	path  string
	units []unit
	n     int
}

// counted runs the parallel search to its end, keeping the first units in
// path order, and pages them. It stops ripgrep (o.stopped) once more than
// MaxScan units came.
func (r *grepReader) counted(ctx context.Context) (GrepResult, outcome, error) {
	keep := r.q.Offset + r.q.MaxLines
	first := newFirstN(keep, func(a, b *block) int { return comparePaths(a.path, b.path) }, func(b *block) int { return b.n })
	var res GrepResult
	var cur *block
	sepSeen := false
	seen := 0
	each := func(rec []byte) bool {
		if seen++; seen > MaxScan {
			return false
		}
		u, ok := r.parse(rec)
		switch {
		case !ok:
			return true
		case u.sep:
			sepSeen = true
			return true
		}
		res.Total++
		if u.match {
			res.Matches++
		}
		res.Matches += max(u.count-1, 0)
		if cur == nil || cur.path != u.path {
			if cur != nil {
				first.add(cur)
			}
			cur = &block{path: u.path}
			res.Files++
			sepSeen = false
		}
		if cur.n < keep { // units past keep cannot be on the page
			if sepSeen && cur.n > 0 {
				cur.units = append(cur.units, unit{sep: true})
			}
			cur.units = append(cur.units, u)
			cur.n++
		}
		sepSeen = false
		return true
	}
	o, err := stream(ctx, r.q.Rg, r.q.Dir, grepArgs(r.q, false), r.delim(), r.maxRecord(), each)
	if err != nil || o.stopped {
		r.scanned = res.Total
		return GrepResult{}, o, err
	}
	if cur != nil {
		first.add(cur)
	}
	p := r.pager()
	for _, b := range first.sorted() {
		if !p.block(b.path, b.units) {
			break
		}
	}
	page := p.result()
	page.Total, page.Matches, page.Files = res.Total, res.Matches, res.Files
	if page.Lines < page.Total-r.q.Offset && page.Stop == Complete {
		page.Stop = AtLimit
	}
	if o.code == 2 && page.Total > 0 {
		page.Warnings = trimStderr(o.stderr)
	}
	return page, o, nil
}

// ordered runs the search in path order on one thread and stops it once
// the page is full and one more unit shows there is more.
func (r *grepReader) ordered(ctx context.Context) (GrepResult, outcome, error) {
	p := r.pager()
	each := func(rec []byte) bool {
		u, ok := r.parse(rec)
		if !ok {
			return true
		}
		return p.add(u)
	}
	o, err := stream(ctx, r.q.Rg, r.q.Dir, grepArgs(r.q, true), r.delim(), r.maxRecord(), each)
	if err != nil {
		return GrepResult{}, o, err
	}
	page := p.result()
	page.Total = p.skipped + page.Lines
	if o.stopped {
		page.Total++ // the unit that showed there is more
		page.AtLeast = true
	} else if o.code == 2 && page.Total > 0 {
		page.Warnings = trimStderr(o.stderr)
	}
	return page, o, nil
}

// pager cuts a page out of the answer's units, given in path order: it
// skips Offset units, takes up to MaxLines within MaxBytes, and says why
// it stopped.
type pager struct {
	q        GrepQuery
	context  bool
	skipped  int
	taken    int
	bytes    int
	out      strings.Builder
	lastPath string
	sep      bool // a separator is due before the next unit taken
	stop     Stop
}

func (r *grepReader) pager() *pager { return &pager{q: r.q, context: r.q.context()} }

// block feeds one file's units; false means the page is full.
func (p *pager) block(path string, units []unit) bool {
	for _, u := range units {
		if u.sep {
			u.path = path
		}
		if !p.add(u) {
			return false
		}
	}
	return true
}

// add feeds one unit; false means the page is full.
func (p *pager) add(u unit) bool {
	if u.sep || (p.context && p.lastPath != "" && u.path != p.lastPath) {
		p.sep = true
	}
	if u.sep {
		return true
	}
	p.lastPath = u.path
	if p.skipped < p.q.Offset {
		p.skipped++
		p.sep = false
		return true
	}
	if p.taken == p.q.MaxLines {
		p.stop = AtLimit
		return false
	}
	cost := len(u.text) + 1
	if p.sep && p.taken > 0 {
		cost += len("--\n")
	}
	if p.bytes+cost > p.q.MaxBytes {
		p.stop = AtBudget
		return false
	}
	if p.sep && p.taken > 0 {
		p.out.WriteString("--\n")
	}
	p.out.WriteString(u.text)
	p.out.WriteByte('\n')
	p.sep = false
	p.taken++
	p.bytes += cost
	return true
}

func (p *pager) result() GrepResult {
	return GrepResult{Text: p.out.String(), Lines: p.taken, Stop: p.stop}
}
