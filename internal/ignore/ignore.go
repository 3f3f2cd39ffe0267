// Package ignore tells which paths of a workspace folder are ignored, the
// way ripgrep (and so Tether's glob and grep) reads ignore files with
// --hidden and --no-require-git: .gitignore, .ignore and .rgignore in the
// folder and every folder beneath it, .git/info/exclude of each
// repository, and git's global excludes file (core.excludesFile, else
// $XDG_CONFIG_HOME/git/ignore).
//
// Precedence follows ripgrep: for a path, the deepest .rgignore with a
// matching pattern decides; failing any, the deepest .ignore; then the
// deepest .gitignore; then .git/info/exclude; then the global file. Within
// one file the last matching pattern wins, and a "!" pattern re-includes.
// A path beneath an ignored folder is ignored whatever its own patterns
// say, since ripgrep never looks inside that folder.
//
// Files are read as needed and kept: a Matcher describes the folder as it
// was when each ignore file was first read.
package ignore

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// verdict is what one rule file says of a path.
type verdict int8

const (
	none verdict = iota
	ignored
	included
)

// rule is one pattern line.
type rule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// rules is one ignore file's patterns, matched relative to its folder.
type rules []rule

func (rs rules) match(rel string, isDir bool) verdict {
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.re.MatchString(rel) {
			if r.negate {
				return included
			}
			return ignored
		}
	}
	return none
}

// dirRules are the ignore files of one folder, by kind, strongest first.
type dirRules struct {
	kinds [4]rules // .rgignore, .ignore, .gitignore, .git/info/exclude
}

var kindFiles = [3]string{".rgignore", ".ignore", ".gitignore"}

// Matcher answers for one workspace folder.
type Matcher struct {
	root   string
	global rules

	mu   sync.Mutex
	dirs map[string]*dirRules // by slash path relative to root; "" is the root
}

// New makes a Matcher for the folder root (a real path).
func New(root string) *Matcher {
	return &Matcher{root: root, global: parseFile(globalExcludes()), dirs: map[string]*dirRules{}}
}

// Ignored reports whether rel (relative to the root, either separator) is
// ignored; isDir says it is (or will be) a folder.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	rel = strings.Trim(filepath.ToSlash(filepath.Clean(rel)), "/")
	if rel == "" || rel == "." {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if m.matched(parts[:i], true) == ignored {
			return true
		}
	}
	return m.matched(parts, isDir) == ignored
}

// matched judges the path parts (relative to the root) with the ignore
// files of the folders above it.
func (m *Matcher) matched(parts []string, isDir bool) verdict {
	rel := strings.Join(parts, "/")
	for kind := range 4 {
		// From the path's own folder up to the root: the deepest file
		// that says anything decides for its kind.
		for d := len(parts) - 1; d >= 0; d-- {
			dir := strings.Join(parts[:d], "/")
			rs := m.rulesOf(dir).kinds[kind]
			if len(rs) == 0 {
				continue
			}
			sub := rel
			if dir != "" {
				sub = rel[len(dir)+1:]
			}
			if v := rs.match(sub, isDir); v != none {
				return v
			}
		}
	}
	return m.global.match(rel, isDir)
}

// rulesOf reads (once) the ignore files of the folder dir.
func (m *Matcher) rulesOf(dir string) *dirRules {
	m.mu.Lock()
	defer m.mu.Unlock()
	if dr := m.dirs[dir]; dr != nil {
		return dr
	}
	dr := &dirRules{}
	base := filepath.Join(m.root, filepath.FromSlash(dir))
	for i, name := range kindFiles {
		dr.kinds[i] = parseFile(filepath.Join(base, name))
	}
	if fi, err := os.Lstat(filepath.Join(base, ".git")); err == nil && fi.IsDir() {
		dr.kinds[3] = parseFile(filepath.Join(base, ".git", "info", "exclude"))
	}
	m.dirs[dir] = dr
	return dr
}

// maxIgnoreFile bounds what is read of one ignore file.
const maxIgnoreFile = 1 << 20

// parseFile reads the patterns of an ignore file; a missing or unreadable
// one has none. Links are not followed out of curiosity: a file that is a
// link is read like ripgrep reads it, through the link.
func parseFile(p string) rules {
	if p == "" {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out rules
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), maxIgnoreFile)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			line = strings.TrimPrefix(line, "\ufeff")
			first = false
		}
		if r, ok := parseLine(line); ok {
			out = append(out, r)
		}
	}
	return out
}

// parseLine turns one line of an ignore file into a rule.
func parseLine(line string) (rule, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return rule{}, false
	}
	var r rule
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return rule{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if strings.HasPrefix(line, "**/") {
		anchored = true // "**/" already says "at any depth"
	}
	body, ok := globRegexp(line)
	if !ok {
		return rule{}, false
	}
	if !anchored {
		body = "(?:.*/)?" + body
	}
	re, err := regexp.Compile("^" + body + "$")
	if err != nil {
		return rule{}, false
	}
	r.re = re
	return r, true
}

// trimTrailingSpace drops trailing spaces that are not escaped.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globRegexp translates a gitignore glob into a regular expression body.
func globRegexp(g string) (string, bool) {
	var b strings.Builder
	segs := strings.Split(g, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "**" {
			switch {
			case len(segs) == 1:
				b.WriteString(".*")
			case i == 0:
				b.WriteString("(?:.*/)?")
			case last:
				b.WriteString(".*")
			default:
				b.WriteString("(?:.*/)?")
			}
			continue
		}
		if err := segRegexp(&b, seg); err {
			return "", false
		}
		if !last {
			b.WriteString("/")
		}
	}
	return b.String(), true
}

// segRegexp writes one path segment's glob; bad reports a broken class.
func segRegexp(b *strings.Builder, seg string) (bad bool) {
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch c {
		case '*':
			for i+1 < len(seg) && seg[i+1] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '\\':
			if i+1 < len(seg) {
				i++
				b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
			}
		case '[':
			end, class, ok := classRegexp(seg[i:])
			if !ok {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(class)
			i += end
		default:
			b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
		}
	}
	return false
}

// classRegexp translates a bracket expression at the start of s; end is
// the index of its closing bracket.
func classRegexp(s string) (end int, class string, ok bool) {
	i := 1
	var b bytes.Buffer
	b.WriteString("[")
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteString("^")
		i++
	}
	first := true
	for ; i < len(s); i++ {
		c := s[i]
		if c == ']' && !first {
			b.WriteString("]")
			return i, b.String(), true
		}
		first = false
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteString(regexp.QuoteMeta(s[i : i+1]))
			}
		case '[', ']', '^':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '/':
			return 0, "", false
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", false
}

// globalExcludes finds git's global excludes file: core.excludesFile from
// the user's git configuration, else $XDG_CONFIG_HOME/git/ignore.
func globalExcludes() string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	found := ""
	for _, cfg := range []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")} {
		if v := readExcludesFile(cfg); v != "" {
			found = v // the later file wins, as in git
		}
	}
	if found == "" {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	if rest, ok := strings.CutPrefix(found, "~/"); ok && home != "" {
		found = filepath.Join(home, rest)
	}
	return found
}

// readExcludesFile reads core.excludesFile from one git config file,
// without includes.
func readExcludesFile(cfg string) string {
	data, err := os.ReadFile(cfg)
	if err != nil {
		return ""
	}
	section := ""
	value := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(strings.Fields(strings.Trim(line, "[]") + " ")[0], `"`))
			continue
		}
		if section != "core" {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			value = strings.Trim(strings.TrimSpace(val), `"`)
		}
	}
	if value == "" {
		return ""
	}
	return path.Clean(value)
}
