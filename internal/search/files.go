package search

import (
	"context"
	"os"
	"strings"
)

// FilesQuery is one file-name search.
type FilesQuery struct {
	// Rg is the ripgrep binary.
	Rg string
	// Dir is ripgrep's working folder; paths under it come out relative.
	Dir string
	// Root is the folder to walk, relative to Dir or absolute; "" means Dir.
	Root string
	// Glob, when set, keeps the paths (relative to Root) it allows.
	Glob *Glob
	// MaxPaths bounds the paths collected.
	MaxPaths int
	// MaxBytes bounds the paths' total length, a newline each.
	MaxBytes int
}

// FilesResult is what a file search found.
type FilesResult struct {
	// Paths are the first of the sorted list of every match, as displayed
	// (relative to Dir when inside it).
	Paths []string
	Stop  Stop
	// Total counts every path that matched, Paths and the rest; with
	// AtLeast set, at least that many matched (the tree was too large to
	// count).
	Total   int
	AtLeast bool
	// Warnings is ripgrep's complaint about folders it could not read.
	Warnings string
}

// FilesArgs is the ripgrep command line for q, without the binary.
func FilesArgs(q FilesQuery) []string { return filesArgs(q, false) }

// filesArgs is the command line, walking on one thread in sorted order
// when sorted is set. Otherwise the walk runs in parallel (--sort makes
// ripgrep walk on one thread) and Files sorts what it keeps.
func filesArgs(q FilesQuery, sorted bool) []string {
	// --null: a file name may contain a newline.
	args := append(baseArgs(), "--files", "--null")
	if sorted {
		args = append(args, "--sort", "path")
	}
	args = append(args, q.Glob.rgArgs()...)
	args = append(args, excludeGit...)
	return append(args, "--", searchRoot(q.Dir, q.Root, q.Glob))
}

// MaxWalk is how many paths Files reads from ripgrep's parallel walk
// before it stops counting: past it, the tree is walked again in sorted
// order and the walk stops at the limit, so a huge tree costs no more
// than the paths asked for.
const MaxWalk = 200_000

// Files walks the tree as ripgrep does and keeps the paths the glob
// allows: the first MaxPaths of the sorted list of every match (cut
// further to MaxBytes), and how many matched in all. The order is that of
// ripgrep's --sort path: a folder's entries by name, each folder's files
// where its name falls.
//
// The walk runs in parallel and to its end, keeping only the first paths
// in order (memory stays bounded by MaxPaths), so the count is exact. A
// tree of more than MaxWalk files is walked again in order instead,
// stopping at the limit; the count is then a lower bound (AtLeast).
//
// Errors are those of Grep.
func Files(ctx context.Context, q FilesQuery) (FilesResult, error) {
	root := q.Root
	if root == "" {
		root = "."
	}
	match := !q.Glob.byRg()
	allows := func(p string) bool { return !match || q.Glob.Allows(relTo(root, p)) }

	var res FilesResult
	first := newFirstN(q.MaxPaths, comparePaths, func(string) int { return 1 })
	walked := 0
	each := func(rec []byte) bool {
		if walked++; walked > MaxWalk {
			return false
		}
		if p := displayPath(string(rec)); allows(p) {
			res.Total++
			first.add(p)
		}
		return true
	}
	o, err := stream(ctx, q.Rg, q.Dir, filesArgs(q, false), 0, maxPathBytes, each)
	if err != nil {
		return FilesResult{}, err
	}
	var paths []string
	if o.stopped {
		// Too many files to count: walk in order and stop at the limit.
		res.AtLeast = true
		paths = nil
		each := func(rec []byte) bool {
			p := displayPath(string(rec))
			if !allows(p) {
				return true
			}
			if len(paths) == q.MaxPaths {
				res.Total = max(res.Total, len(paths)+1)
				return false
			}
			paths = append(paths, p)
			return true
		}
		if o, err = stream(ctx, q.Rg, q.Dir, filesArgs(q, true), 0, maxPathBytes, each); err != nil {
			return FilesResult{}, err
		}
		res.Total = max(res.Total, len(paths))
	} else {
		paths = first.sorted()
		if len(paths) > q.MaxPaths {
			paths = paths[:q.MaxPaths]
		}
	}
	if len(paths) < res.Total {
		res.Stop = AtLimit
	}
	size := 0
	for i, p := range paths {
		if size+len(p)+1 > q.MaxBytes {
			paths, res.Stop = paths[:i], AtBudget
			break
		}
		size += len(p) + 1
	}
	res.Paths = paths
	switch {
	case o.stopped, o.code == 0, o.code == 1:
	case o.code == 2 && res.Total > 0:
		res.Warnings = trimStderr(o.stderr)
	case o.code == 2 && noFilesSearched(o.stderr):
	default:
		return FilesResult{}, &RgError{Code: o.code, Stderr: trimStderr(o.stderr)}
	}
	return res, nil
}

// comparePaths orders paths name by name along them, as ripgrep's --sort
// path walks a tree: "a/z.go" before "a-b.go", since folder "a" sorts
// before file "a-b.go".
func comparePaths(a, b string) int {
	for {
		i, j := nextSep(a), nextSep(b)
		if c := strings.Compare(a[:i], b[:j]); c != 0 {
			return c
		}
		switch {
		case i == len(a) && j == len(b):
			return 0
		case i == len(a): // a file (or folder) named like b's folder
			return -1
		case j == len(b):
			return 1
		}
		a, b = a[i+1:], b[j+1:]
	}
}

// nextSep is the index of the first path separator in p, or len(p).
func nextSep(p string) int {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' || p[i] == os.PathSeparator {
			return i
		}
	}
	return len(p)
}
