package ignore

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPatterns(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("HOME", filepath.Join(root, "home"))
	ws := filepath.Join(root, "ws")
	write(t, ws, ".gitignore", "*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.html\n**/cache\nvendor/**/gen\n\\#hash\ntrailing\\ \n")
	write(t, ws, "sub/.gitignore", "!debug.log\nlocal.txt\n")
	write(t, ws, "sub/.ignore", "*.tmp\n")
	write(t, ws, ".git/info/exclude", "secret.env\n")
	write(t, root, "config/git/ignore", ".DS_Store\n")
	m := New(ws)
	for _, tc := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"a.log", false, true},
		{"keep.log", false, false},
		{"x/y/z.log", false, true},
		{"build", true, true},
		{"build", false, false},
		{"build/out.o", false, true},
		{"x/build/out.o", false, true},
		{"top.txt", false, true},
		{"x/top.txt", false, false},
		{"docs/a.html", false, true},
		{"docs/x/a.html", false, false},
		{"a/b/cache/f", false, true},
		{"vendor/gen", false, true},
		{"vendor/x/y/gen", false, true},
		{"#hash", false, true},
		{"trailing ", false, true},
		{"sub/debug.log", false, false},
		{"sub/other.log", false, true},
		{"sub/local.txt", false, true},
		{"local.txt", false, false},
		{"sub/x.tmp", false, true},
		{"x.tmp", false, false},
		{"secret.env", false, true},
		{"d/.DS_Store", false, true},
		{"main.go", false, false},
	} {
		if got := m.Ignored(tc.rel, tc.isDir); got != tc.want {
			t.Errorf("Ignored(%q, dir=%v) = %v, want %v", tc.rel, tc.isDir, got, tc.want)
		}
	}
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAgainstRipgrep builds random trees with random ignore files and
// checks that the files the Matcher keeps are the files ripgrep lists.
func TestAgainstRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep is not installed")
	}
	names := []string{"a", "b.log", "keep.log", "build", "x.tmp", ".hidden", "c.go", "gen", "d1", "cache", "#c", "A.GO"}
	dirs := []string{"", "d1", "d2", "build", "d1/build", "d2/sub", "d1/cache", "vendor/x"}
	patterns := []string{"*.log", "!keep.log", "build/", "/a", "d1/b.log", "**/gen", "d*/", "[ab]", "!d1/", "d2/**",
		"**/build/**", `\#c`, "*.tmp", "!*.tmp", "/d2/sub/", ".hidden", "cache", "!build/", "sub/c.go", "*.GO", "?.go", "[!a]*.log", "vendor/**/gen"}
	ignoreFiles := []string{".gitignore", ".ignore", ".rgignore"}
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 80 {
		root := t.TempDir()
		ws := filepath.Join(root, "ws")
		cfg := filepath.Join(root, "config")
		for _, d := range dirs {
			for _, n := range names {
				if rng.IntN(3) == 0 {
					continue
				}
				write(t, ws, filepath.Join(d, n+"_f"), "x")
				if rng.IntN(4) == 0 && !slices.ContainsFunc(dirs, func(x string) bool { return x == n || strings.HasPrefix(x, n+"/") || strings.HasSuffix(x, "/"+n) }) {
					write(t, ws, filepath.Join(d, n), "x")
				}
			}
			for _, f := range ignoreFiles {
				if rng.IntN(4) != 0 {
					continue
				}
				var lines []string
				for range 1 + rng.IntN(4) {
					lines = append(lines, patterns[rng.IntN(len(patterns))])
				}
				write(t, ws, filepath.Join(d, f), strings.Join(lines, "\n")+"\n")
			}
		}
		if rng.IntN(3) == 0 {
			write(t, ws, ".git/info/exclude", patterns[rng.IntN(len(patterns))]+"\n")
		}
		if rng.IntN(3) == 0 {
			write(t, cfg, "git/ignore", patterns[rng.IntN(len(patterns))]+"\n")
		}
		t.Setenv("XDG_CONFIG_HOME", cfg)
		t.Setenv("HOME", filepath.Join(root, "home"))
		cmd := exec.Command(rg, "--files", "--no-config", "--no-require-git", "--hidden", "--glob", "!.git")
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "HOME="+filepath.Join(root, "home"))
		out, err := cmd.Output()
		if err != nil && len(out) != 0 {
			t.Fatalf("rg: %v", err)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" {
				want = append(want, filepath.ToSlash(l))
			}
		}
		m := New(ws)
		var got []string
		filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(ws, p)
			if !m.Ignored(rel, false) {
				got = append(got, filepath.ToSlash(rel))
			}
			return nil
		})
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			var files []string
			filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
				for _, f := range append(ignoreFiles, "exclude") {
					if d.Name() == f {
						data, _ := os.ReadFile(p)
						rel, _ := filepath.Rel(ws, p)
						files = append(files, fmt.Sprintf("%s: %q", rel, data))
					}
				}
				return nil
			})
			t.Fatalf("round %d: the matcher and ripgrep disagree\nonly matcher: %v\nonly rg: %v\nignore files:\n%s", round, minus(got, want), minus(want, got), strings.Join(files, "\n"))
		}
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
