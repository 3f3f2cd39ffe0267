package search

import (
	"bytes"
	"context"
	"sort"
	"strconv"
	"strings"
)

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
	// Context is how many lines to show around each match.
	Context int
	// MaxLines bounds the output lines collected, matches and context alike.
	MaxLines int
	// MaxBytes bounds the text collected.
	MaxBytes int
	// MaxColumns cuts longer lines to a preview of that many bytes.
	MaxColumns int
}

// GrepResult is what a search found.
type GrepResult struct {
	// Text holds "path:line:text" lines; context lines read
	// "path-line-text" and separate groups are split by "--". Files come
	// in path order.
	Text string
	// Lines counts the output lines in Text, separators aside.
	Lines int
	Stop  Stop
	// Warnings is ripgrep's complaint about files it could not read, when
	// it found matches anyway.
	Warnings string
}

// maxPathBytes leaves room for a long path in front of a cut line.
const maxPathBytes = 4096

// GrepArgs is the ripgrep command line for q, without the binary. It is
// exported so that benchmarks can run ripgrep exactly as Grep does.
func GrepArgs(q GrepQuery) []string {
	args := append(baseArgs(),
		"--line-number", "--with-filename", "--no-heading",
		// A NUL after the path keeps a path with ':' or '-' in it from
		// being misread.
		"--null",
		"--max-columns", strconv.Itoa(max(q.MaxColumns, 1)), "--max-columns-preview")
	if q.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if q.Context > 0 {
		args = append(args, "--context", strconv.Itoa(q.Context))
	}
	args = append(args, q.Glob.rgArgs()...)
	args = append(args, excludeGit...)
	return append(args, "--regexp", q.Pattern, "--", searchRoot(q.Dir, q.Root, q.Glob))
}

// Grep runs the search, reading ripgrep's output as it comes and stopping
// it as soon as MaxLines lines or MaxBytes bytes are collected and one
// more line shows there is more. Ripgrep searches files in parallel and
// prints each file's lines together; Grep puts the files in path order so
// that a complete answer is the same every time.
//
// Errors: ErrNoRipgrep (wrapped) when ripgrep cannot run, *RgError when it
// rejects the search (a bad regex), ctx.Err() when cancelled.
func Grep(ctx context.Context, q GrepQuery) (GrepResult, error) {
	root := q.Root
	if root == "" {
		root = "."
	}
	c := grepCollector{q: q, root: root}
	maxRecord := max(q.MaxColumns, 1) + maxPathBytes + 64
	o, err := stream(ctx, q.Rg, q.Dir, GrepArgs(q), '\n', maxRecord, c.add)
	if err != nil {
		return GrepResult{}, err
	}
	res := GrepResult{Text: c.text(), Lines: c.lines, Stop: c.stop}
	if o.stopped {
		return res, nil
	}
	switch {
	case o.code == 0 || o.code == 1:
	case o.code == 2 && c.lines > 0:
		res.Warnings = trimStderr(o.stderr)
	case o.code == 2 && noFilesSearched(o.stderr):
		// The glob's file type matched no file at all.
	default:
		return GrepResult{}, &RgError{Code: o.code, Stderr: trimStderr(o.stderr)}
	}
	return res, nil
}

// fileBlock is one file's lines, in ripgrep's order.
type fileBlock struct {
	path  string
	lines []string
}

// grepCollector turns ripgrep's records into file blocks, applying the
// glob and the limits.
type grepCollector struct {
	q    GrepQuery
	root string

	blocks  []fileBlock
	sepSeen bool // a "--" came since the last line
	lines   int
	bytes   int
	stop    Stop

	lastPath  string
	lastAllow bool
}

// add takes one record; it returns false when ripgrep should stop.
func (c *grepCollector) add(rec []byte) bool {
	if string(rec) == "--" {
		c.sepSeen = true
		return true
	}
	path, line := c.format(rec)
	if !c.allowed(path) {
		return true
	}
	if c.lines >= c.q.MaxLines {
		c.stop = AtLimit
		return false
	}
	n := len(c.blocks)
	sameFile := n > 0 && c.blocks[n-1].path == path
	cost := len(line) + 1
	if (sameFile && c.sepSeen) || (!sameFile && n > 0 && c.q.Context > 0) {
		cost += len("--\n")
	}
	if c.bytes+cost > c.q.MaxBytes {
		c.stop = AtBudget
		return false
	}
	if !sameFile {
		c.blocks = append(c.blocks, fileBlock{path: path})
		n++
	} else if c.sepSeen {
		c.blocks[n-1].lines = append(c.blocks[n-1].lines, "--")
	}
	c.blocks[n-1].lines = append(c.blocks[n-1].lines, line)
	c.sepSeen = false
	c.lines++
	c.bytes += cost
	return true
}

// format reads "path\0N:text" (a match) or "path\0N-text" (context) and
// gives the path and the "path:N:text" / "path-N-text" line. A record
// without a NUL is one of ripgrep's notices, such as "f.bin: binary file
// matches (…)", kept as it is.
func (c *grepCollector) format(rec []byte) (path, line string) {
	nul := bytes.IndexByte(rec, 0)
	if nul < 0 {
		s := string(rec)
		p, note, found := strings.Cut(s, ": ")
		if !found {
			return displayPath(p), displayPath(s)
		}
		return displayPath(p), displayPath(p) + ": " + note
	}
	path = displayPath(string(rec[:nul]))
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
	return path, b.String()
}

// allowed applies the glob, remembering the last answer: a file's lines
// come together.
func (c *grepCollector) allowed(path string) bool {
	if c.q.Glob == nil {
		return true
	}
	if path != c.lastPath {
		c.lastPath, c.lastAllow = path, c.q.Glob.Allows(relTo(c.root, path))
	}
	return c.lastAllow
}

// text joins the blocks in path order.
func (c *grepCollector) text() string {
	sort.SliceStable(c.blocks, func(i, j int) bool { return c.blocks[i].path < c.blocks[j].path })
	var b strings.Builder
	b.Grow(c.bytes)
	for i, blk := range c.blocks {
		if i > 0 && c.q.Context > 0 {
			b.WriteString("--\n")
		}
		for _, l := range blk.lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
