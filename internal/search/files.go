package search

import (
	"context"
	"os"
	"slices"
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
	// Paths are sorted, as displayed (relative to Dir when inside it).
	Paths []string
	Stop  Stop
	// Warnings is ripgrep's complaint about folders it could not read.
	Warnings string
}

// FilesArgs is the ripgrep command line for q, without the binary.
func FilesArgs(q FilesQuery) []string {
	// No --sort: it makes ripgrep walk on one thread. The walk runs in
	// parallel and Files sorts what it keeps, at most MaxPaths paths.
	// --null: a file name may contain a newline.
	args := append(baseArgs(), "--files", "--null")
	args = append(args, q.Glob.rgArgs()...)
	args = append(args, excludeGit...)
	return append(args, "--", searchRoot(q.Dir, q.Root, q.Glob))
}

// Files walks the tree as ripgrep does and keeps the paths the glob
// allows, stopping ripgrep as soon as MaxPaths paths (or MaxBytes) are
// collected and one more shows there is more. The paths come back sorted
// as ripgrep's --sort path would list them: a folder's entries by name,
// each folder's files where its name falls. When the walk stops at a
// limit, which of the paths are kept depends on the order the parallel
// walk found them in.
//
// Errors are those of Grep.
func Files(ctx context.Context, q FilesQuery) (FilesResult, error) {
	root := q.Root
	if root == "" {
		root = "."
	}
	var res FilesResult
	size := 0
	match := !q.Glob.byRg()
	each := func(rec []byte) bool {
		p := displayPath(string(rec))
		if match && !q.Glob.Allows(relTo(root, p)) {
			return true
		}
		if len(res.Paths) >= q.MaxPaths {
			res.Stop = AtLimit
			return false
		}
		if size+len(p)+1 > q.MaxBytes {
			res.Stop = AtBudget
			return false
		}
		res.Paths = append(res.Paths, p)
		size += len(p) + 1
		return true
	}
	o, err := stream(ctx, q.Rg, q.Dir, FilesArgs(q), 0, maxPathBytes, each)
	if err != nil {
		return FilesResult{}, err
	}
	slices.SortFunc(res.Paths, comparePaths)
	switch {
	case o.stopped, o.code == 0, o.code == 1:
	case o.code == 2 && len(res.Paths) > 0:
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
