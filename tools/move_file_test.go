package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/protocol"
)

func moveArgs(from, to string) map[string]any {
	return map[string]any{"from": from, "to": to}
}

func (h *harness) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(h.dir, rel))
	return err == nil
}

func TestMoveFileMovesAndCreatesFolders(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "content\n")
	got := h.ok("move_file", moveArgs("a.txt", "new/dir/b.txt"))
	if !strings.Contains(got, "Moved a.txt to new/dir/b.txt") {
		t.Fatal(got)
	}
	if h.exists("a.txt") || h.read("new/dir/b.txt") != "content\n" {
		t.Fatal("not moved")
	}
}

func TestMoveFileReadRecordFollowsTheFile(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\ntwo\n")
	h.readWhole("a.txt")
	h.ok("move_file", moveArgs("a.txt", "b.txt"))
	h.ok("edit_file", editArgs("b.txt", "one", "1"))
	h.ok("write_file", writeArgs("b.txt", "whole\n")) // still a full read
	if msg := h.fail("edit_file", editArgs("a.txt", "two", "2")); !strings.Contains(msg, "does not exist") {
		t.Fatal(msg)
	}
}

func TestMoveFileNeverOverwrites(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "a\n")
	h.write("b.txt", "b\n")
	if msg := h.fail("move_file", moveArgs("a.txt", "b.txt")); !strings.Contains(msg, "already exists, and move_file never overwrites") {
		t.Fatal(msg)
	}
	if h.read("a.txt") != "a\n" || h.read("b.txt") != "b\n" {
		t.Fatal("files changed")
	}
}

// hookHost runs a function while the user is being asked, standing in for
// whatever else happens on the machine in that time.
type hookHost struct {
	*fakeHost
	during func()
}

func (h hookHost) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	h.during()
	return h.fakeHost.Approve(ctx, req)
}

func TestMoveFileTargetAppearingWhileAskingIsKept(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "a\n")
	h.env.Host = hookHost{h.host, func() { h.write("b.txt", "someone else's\n") }}
	if msg := h.fail("move_file", moveArgs("a.txt", "b.txt")); !strings.Contains(msg, "already exists") {
		t.Fatal(msg)
	}
	if h.read("a.txt") != "a\n" || h.read("b.txt") != "someone else's\n" {
		t.Fatal("a file was lost")
	}
}

// The last line of defence, below every check: the rename itself refuses
// to replace a file that appeared after the checks.
func TestMoveRenameRefusesExistingTarget(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "from"), filepath.Join(dir, "to")
	os.WriteFile(from, []byte("from"), 0o644)
	os.WriteFile(to, []byte("to"), 0o644)
	if err := fsatomic.RenameNoReplace(from, to); !errors.Is(err, fsatomic.ErrExists) {
		t.Fatalf("err = %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(to); string(b) != "to" {
		t.Fatal("target replaced")
	}
	if b, _ := os.ReadFile(from); string(b) != "from" {
		t.Fatal("source lost")
	}
}

func TestMoveFileRefusals(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "a\n")
	h.write("dir/x.txt", "x\n")
	os.Symlink("a.txt", filepath.Join(h.dir, "link.txt"))
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "o.txt"), []byte("o\n"), 0o644)
	for _, tc := range []struct {
		name     string
		from, to string
		want     string
	}{
		{"a directory", "dir", "dir2", "use the shell"},
		{"a symlink", "link.txt", "l2.txt", "symbolic link"},
		{"missing source", "nope.txt", "b.txt", "does not exist"},
		{"into an existing directory", "a.txt", "dir", "Give the full new path including the file name, for example dir/a.txt"},
		{"onto itself", "a.txt", "./a.txt", "same file"},
		{"target outside", "a.txt", filepath.Join(outside, "a.txt"), "outside the workspace"},
		{"source outside", filepath.Join(outside, "o.txt"), "o.txt", "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := h.snapshot()
			if msg := h.fail("move_file", moveArgs(tc.from, tc.to)); !strings.Contains(msg, tc.want) {
				t.Fatal(msg)
			}
			if len(h.snapshot()) != len(before) {
				t.Fatal("files changed")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "o.txt")); err != nil {
		t.Fatal("outside file moved")
	}
}
