package overlay_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/overlay/overlaytest"
)

func TestAllocatePlacesLayersOnTheFoldersFileSystem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("overlay layers are made on Linux only")
	}
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := time.Now().Add(-time.Second)
	set, err := overlay.Allocate(filepath.Join(root, "state"), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Layers) != 2 || set.Started.Before(before) {
		t.Fatalf("set: %+v", set)
	}
	for i, l := range set.Layers {
		if l.Copy {
			t.Errorf("layer %d is to be copied, though the state folder is on the folder's file system", i)
		}
		for _, d := range []string{l.Upper, l.Work} {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				t.Errorf("layer %d: %s: %v", i, d, err)
			}
		}
	}
	if set.Layers[0].Upper == set.Layers[1].Upper {
		t.Error("two folders share an upper layer")
	}
	if err := set.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(set.Layers[0].Upper); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the layer is still there after Remove: %v", err)
	}
}

// A layer inside a workspace folder would be part of its own lower layer:
// when the state folder lies in the workspace, the layer goes beside it.
func TestAllocateAvoidsNestingInAFolder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("overlay layers are made on Linux only")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	set, err := overlay.Allocate(filepath.Join(ws, ".local", "state"), []string{ws})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Remove()
	up := set.Layers[0].Upper
	if rel, _ := filepath.Rel(ws, up); !strings.HasPrefix(rel, "..") {
		t.Errorf("the upper layer %s lies inside the workspace folder %s", up, ws)
	}
	if set.Layers[0].Copy {
		t.Errorf("the sibling folder is on the same file system; the layer should not need copying")
	}
}

// Sweep removes what a killed Tether left, never a set another one holds.
func TestSweepRemovesOnlyDeadSets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("overlay layers are made on Linux only")
	}
	root := t.TempDir()
	folder := filepath.Join(root, "ws")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(root, "state")
	held, err := overlay.Allocate(state, []string{folder})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Remove()
	// A set made by a process that then died, its overlay used: the work
	// folder keeps a subfolder of mode 0.
	dead, err := overlay.Allocate(state, []string{folder})
	if err != nil {
		t.Fatal(err)
	}
	if overlaytest.Available() == "" {
		overlaytest.Run(t, dead, "echo x > f")
	}
	deadDir := filepath.Dir(filepath.Dir(dead.Layers[0].Upper))
	// Its lock goes the way a dying process's does: its file is closed.
	overlay.ReleaseWithoutRemoving(dead)
	if err := overlay.Sweep(state); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deadDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dead set is still there: %v", err)
	}
	if _, err := os.Stat(held.Layers[0].Upper); err != nil {
		t.Errorf("Sweep removed a set that is held: %v", err)
	}
}
