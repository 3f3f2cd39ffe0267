package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// The one-call answer is yes only for a path with no link in it.
func TestNoSymlinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "b", "f.txt"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link"))
	os.Symlink(filepath.Join(root, "a", "b", "f.txt"), filepath.Join(root, "a", "flink"))
	if !noSymlinks(filepath.Join(root, "a", "b", "f.txt")) {
		if noOpenat2.Load() {
			t.Skip("openat2 is not available here")
		}
		t.Error("a path without links was not recognised in one call")
	}
	for _, p := range []string{"link/b/f.txt", "link", "a/flink", "a/b/new.txt", "a/b/f.txt/x"} {
		if noSymlinks(filepath.Join(root, p)) {
			t.Errorf("%s was taken for a path without links", p)
		}
	}
}
