package undo

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/fsatomic"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashHelperEnv) != "" {
		os.Exit(runCrashHelper())
	}
	goleak.VerifyTestMain(m)
}

// fixture is a workspace folder and an undo store over it, both temporary.
type fixture struct {
	t     *testing.T
	ws    string
	dir   string
	store *Store
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if opts.Dir == "" {
		opts.Dir = filepath.Join(t.TempDir(), "undo")
	}
	s, err := Open(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &fixture{t: t, ws: ws, dir: opts.Dir, store: s}
}

func (f *fixture) path(rel string) string { return filepath.Join(f.ws, filepath.FromSlash(rel)) }

// put writes a file directly, as a user or the initial workspace would.
func (f *fixture) put(rel, content string, mode fs.FileMode) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

// Tether's side of a change, as tools.Apply does it: save, change, record.

func (f *fixture) edit(req, rel, content string) {
	f.t.Helper()
	p := f.path(rel)
	f.must(f.store.Save(req, p))
	f.must(os.MkdirAll(filepath.Dir(p), 0o755))
	f.must(fsatomic.WriteFile(p, []byte(content), 0o644))
	f.must(f.store.Wrote(req, p))
}

func (f *fixture) remove(req, rel string) {
	f.t.Helper()
	p := f.path(rel)
	f.must(f.store.Save(req, p))
	f.must(os.Remove(p))
	f.must(f.store.Wrote(req, p))
}

func (f *fixture) move(req, from, to string) {
	f.t.Helper()
	a, b := f.path(from), f.path(to)
	f.must(f.store.Save(req, a))
	f.must(f.store.Save(req, b))
	f.must(os.MkdirAll(filepath.Dir(b), 0o755))
	f.must(fsatomic.RenameNoReplace(a, b))
	f.must(f.store.Wrote(req, a))
	f.must(f.store.Wrote(req, b))
}

func (f *fixture) chmod(req, rel string, mode fs.FileMode) {
	f.t.Helper()
	p := f.path(rel)
	f.must(f.store.Save(req, p))
	f.must(os.Chmod(p, mode))
	f.must(f.store.Wrote(req, p))
}

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// snapshot is every file of the workspace: content and mode.
type snapshot map[string]fileSnap

type fileSnap struct {
	data []byte
	mode fs.FileMode
}

func (f *fixture) snapshot() snapshot { return takeSnapshot(f.t, f.ws) }

func takeSnapshot(t *testing.T, root string) snapshot {
	t.Helper()
	snap := snapshot{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		snap[filepath.ToSlash(rel)] = fileSnap{data: data, mode: fi.Mode()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// diffSnapshots lists how got differs from want, one line per file.
func diffSnapshots(want, got snapshot) []string {
	var out []string
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			out = append(out, name+": missing")
		case !bytes.Equal(g.data, w.data):
			out = append(out, name+": content differs: "+clip(string(g.data))+" want "+clip(string(w.data)))
		case g.mode != w.mode:
			out = append(out, name+": mode "+g.mode.String()+" want "+w.mode.String())
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			out = append(out, name+": unexpected file")
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func (f *fixture) expectSnapshot(want snapshot) {
	f.t.Helper()
	for _, d := range diffSnapshots(want, f.snapshot()) {
		f.t.Error(d)
	}
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	data, err := os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// countBlobs is how many contents the store holds.
func countBlobs(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
