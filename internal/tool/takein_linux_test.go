package tool

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/protocol"
)

// noOverlayXattrs fails when an overlay attribute reached the workspace.
func noOverlayXattrs(t *testing.T, folders []string) {
	t.Helper()
	for _, dir := range folders {
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			buf := make([]byte, 4096)
			n, _ := unix.Llistxattr(p, buf)
			for _, name := range bytes.Split(buf[:max(n, 0)], []byte{0}) {
				if bytes.HasPrefix(name, []byte("user.overlay.")) {
					t.Errorf("%s carries %s", p, name)
				}
			}
			return nil
		})
	}
}

// The overlay's own attributes never reach the workspace; the file's
// other attributes do.
func TestOverlayAttributesAreStripped(t *testing.T) {
	f := newCapture(t, protocol.ModeBypass, map[string]string{"old.txt": "old\n"})
	set, err := overlay.Allocate(project.StateDir(f.env.Workspace.Primary()), f.folders)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Remove()
	for _, name := range []string{"new.txt", "old.txt"} {
		p := filepath.Join(set.Layers[0].Upper, name)
		if err := os.WriteFile(p, []byte("written by the command\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, x := range []string{"user.overlay.origin", "user.overlay.impure", "user.mine"} {
			if err := unix.Setxattr(p, x, []byte("v"), 0); err != nil {
				t.Skipf("this file system keeps no user attributes: %v", err)
			}
		}
	}
	c := &Call{Name: "shell", RequestID: "r1", Budget: NewBudget(0, 0), Session: NewSession(), Env: f.env}
	if res, err := c.TakeIn(context.Background(), set, "write"); err != nil || res.IsError {
		t.Fatalf("%v: %s", err, res.Content)
	}
	noOverlayXattrs(t, f.folders)
	buf := make([]byte, 64)
	if n, err := unix.Getxattr(filepath.Join(f.folders[0], "new.txt"), "user.mine", buf); err != nil || string(buf[:n]) != "v" {
		t.Errorf("the command's own attribute was lost: %v", err)
	}
}
