package search

import (
	"os"
	"path/filepath"
	"strings"
)

// searchRoot picks ripgrep's path argument: root ("" meaning the working
// folder), or the deeper folder a glob spells out literally when that is
// a real folder. It never steps through a symlink: ripgrep follows a
// symlink it is pointed at, which could lead it out of the tree the
// caller was allowed to search.
func searchRoot(dir, root string, g *Glob) string {
	if root == "" {
		root = "."
	}
	lit := g.literalDir()
	if lit == "" {
		return root
	}
	cur := root
	for _, seg := range strings.Split(lit, "/") {
		next := filepath.Join(cur, seg)
		abs := next
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, next)
		}
		fi, err := os.Lstat(abs)
		if err != nil || !fi.IsDir() {
			break
		}
		cur = next
	}
	return cur
}

// displayPath turns a path as ripgrep printed it into the one Tether
// shows: relative paths without ripgrep's "./" (".\" on Windows) when told
// to search ".", and slash separated, as every other tool shows them.
func displayPath(printed string) string { return displayPathSep(printed, filepath.Separator) }

// displayPathSep is displayPath for a system whose separator is sep. Only
// where the separator is a backslash is one a separator: elsewhere it is
// an ordinary character of a file name.
func displayPathSep(printed string, sep byte) string {
	if sep == '\\' {
		printed = strings.TrimPrefix(printed, `.\`)
		printed = strings.ReplaceAll(printed, `\`, "/")
	}
	return strings.TrimPrefix(printed, "./")
}

// relTo makes a displayed path relative to the searched root, slash
// separated, for glob matching. A root that is itself a file gives its
// name.
func relTo(root, path string) string {
	root = filepath.ToSlash(filepath.Clean(root))
	path = filepath.ToSlash(path)
	if root == "." {
		return path
	}
	if rel, ok := strings.CutPrefix(path, strings.TrimSuffix(root, "/")+"/"); ok {
		return rel
	}
	return path[strings.LastIndexByte(path, '/')+1:]
}
