package overlay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/overlay/overlaytest"
)

// newSet makes a workspace folder with files (name → content; a name
// ending in / is a folder, "->target" content a symlink) and a set of
// layers for it under a state folder of the test's own.
func newSet(t *testing.T, files map[string]string) *overlay.Set {
	t.Helper()
	if why := overlaytest.Available(); why != "" {
		t.Skip(why)
	}
	root := t.TempDir()
	folder := filepath.Join(root, "ws")
	writeTree(t, folder, files)
	set, err := overlay.Allocate(filepath.Join(root, "state"), []string{folder})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Remove() })
	return set
}

func writeTree(t *testing.T, folder string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(folder, n)
		c := files[n]
		switch {
		case strings.HasSuffix(n, "/"):
			err := os.MkdirAll(p, 0o755)
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// show writes changes one a line: "path: before -> after", with modes,
// link targets and marks.
func show(cs *overlay.Changes) []string {
	var out []string
	for _, c := range cs.Changes {
		s := fmt.Sprintf("%s: %s -> %s", filepath.ToSlash(c.Path), state(c.Before), state(c.After))
		if c.SameContent {
			s += " (same bytes)"
		}
		if c.LinkTo != "" {
			s += " (link of " + c.LinkTo + ")"
		}
		if c.LinkGroup != 0 {
			s += fmt.Sprintf(" (group %d)", c.LinkGroup)
		}
		out = append(out, s)
	}
	for _, r := range cs.Refused {
		out = append(out, "refused "+r.Path+": "+r.What)
	}
	return out
}

func state(s overlay.State) string {
	switch s.Type {
	case overlay.File:
		return fmt.Sprintf("file %o %d", s.Mode.Perm(), s.Size)
	case overlay.Dir:
		return fmt.Sprintf("folder %o", s.Mode.Perm())
	case overlay.Symlink:
		return "link " + s.Link
	}
	return "none"
}

func TestRead(t *testing.T) {
	base := map[string]string{
		"a.txt":        "alpha\n",
		"b.txt":        "beta\n",
		"keep.txt":     "keep\n",
		"d/x.txt":      "x\n",
		"d/sub/y.txt":  "y\n",
		"d/sub/deep/":  "",
		"e/z.txt":      "z\n",
		"link":         "->a.txt",
		"script.sh":    "echo hi\n",
		"pair/one.txt": "linked\n",
	}
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"nothing", "cat a.txt >/dev/null; ls -R >/dev/null", nil},
		{"create", "printf 'new\\n' > new.txt", []string{"new.txt: none -> file 644 4"}},
		{"overwrite", "printf 'ALPHA\\n' > a.txt", []string{"a.txt: file 644 6 -> file 644 6"}},
		{"append", "echo more >> a.txt", []string{"a.txt: file 644 6 -> file 644 11"}},
		{"truncate", ": > a.txt", []string{"a.txt: file 644 6 -> file 644 0"}},
		{"delete", "rm b.txt", []string{"b.txt: file 644 5 -> none"}},
		{"rename", "mv a.txt moved.txt", []string{"a.txt: file 644 6 -> none", "moved.txt: none -> file 644 6"}},
		{"folder made and filled", "mkdir -p n/m && echo 1 > n/m/one && echo 2 > n/two", []string{
			"n: none -> folder 755", "n/m: none -> folder 755", "n/m/one: none -> file 644 2", "n/two: none -> file 644 2"}},
		{"folder removed", "rm -r d", []string{
			"d/sub/deep: folder 755 -> none", "d/sub/y.txt: file 644 2 -> none", "d/sub: folder 755 -> none", "d/x.txt: file 644 2 -> none", "d: folder 755 -> none"}},
		{"folder removed and made again", "rm -r d && mkdir -p d/sub && echo x > d/x.txt && echo new > d/sub/new", []string{
			"d/sub/new: none -> file 644 4", "d/sub/deep: folder 755 -> none", "d/sub/y.txt: file 644 2 -> none"}},
		{"chmod +x", "chmod +x script.sh", []string{"script.sh: file 644 8 -> file 755 8 (same bytes)"}},
		{"no-op copy-ups", "touch a.txt && chmod 644 b.txt && : >> keep.txt && sh -c 'exec 3>>e/z.txt'", nil},
		{"symlink made", "ln -s b.txt blink", []string{"blink: none -> link b.txt"}},
		{"symlink replaced", "ln -sfn keep.txt link", []string{"link: link a.txt -> link keep.txt"}},
		{"symlink touched only", "touch -h link", nil},
		{"hard link of a lower file", "ln pair/one.txt pair/two.txt", []string{"pair/two.txt: none -> file 644 7 (link of pair/one.txt) (group 1)"}},
		{"hard link made of a new file", "echo n > h1 && ln h1 h2", []string{"h1: none -> file 644 2 (group 1)", "h2: none -> file 644 2 (group 1)"}},
		{"made and deleted", "echo gone > tmp.txt && mkdir tmpd && echo x > tmpd/f && rm -r tmp.txt tmpd", nil},
		{"file becomes folder", "rm a.txt && mkdir a.txt && echo in > a.txt/in", []string{"a.txt: file 644 6 -> folder 755", "a.txt/in: none -> file 644 3"}},
		{"folder becomes file", "rm -r e && echo f > e", []string{"e/z.txt: file 644 2 -> none", "e: folder 755 -> file 644 2"}},
		{"fifo refused", "mkfifo pipe", []string{"refused pipe: a named pipe (FIFO)"}},
		{"folder mode", "chmod 700 e", []string{"e: folder 755 -> folder 700"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := newSet(t, base)
			overlaytest.Run(t, set, tc.script)
			cs, err := overlay.Read(set.Layers[0])
			if err != nil {
				t.Fatal(err)
			}
			got := show(cs)
			if !slices.Equal(got, tc.want) {
				t.Errorf("changes:\n got %q\nwant %q", got, tc.want)
			}
			// The folder itself is untouched: everything went to the layer.
			for name, content := range base {
				if strings.HasSuffix(name, "/") || strings.HasPrefix(content, "->") {
					continue
				}
				data, err := os.ReadFile(filepath.Join(set.Layers[0].Folder, name))
				if err != nil || string(data) != content {
					t.Errorf("%s in the workspace changed: %q, %v", name, data, err)
				}
			}
		})
	}
}

func TestRenamesPairByContent(t *testing.T) {
	set := newSet(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta!\n"})
	overlaytest.Run(t, set, "mv a.txt c.txt && rm b.txt && echo other > d.txt")
	cs, err := overlay.Read(set.Layers[0])
	if err != nil {
		t.Fatal(err)
	}
	rs, err := cs.Renames()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].From != "a.txt" || rs[0].To != "c.txt" {
		t.Errorf("renames: %+v", rs)
	}
}
