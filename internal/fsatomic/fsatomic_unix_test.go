//go:build unix

package fsatomic

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenRegularRefusesANamedPipeWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := OpenRegular(fifo)
		if err == nil {
			err = errors.New("opened")
		}
		_, _, err2 := OpenRegularIn(openRoot(t, dir), "pipe")
		if err2 == nil {
			err2 = errors.New("opened")
		}
		done <- errors.Join(err, err2)
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || strings.Contains(err.Error(), "opened") {
			t.Fatalf("opening a named pipe: %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("opening a named pipe with no writer blocked")
	}
	if err := WriteFileIn(openRoot(t, dir), "pipe", []byte("x"), 0o644); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("writing over a named pipe: %v", err)
	}
}

func TestWriteKeepsUserXattrs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("user.* attributes are Linux's")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "tagged.txt")
	write(t, p, "old", 0o644)
	if err := setXattrPath(p, "user.tether.test", []byte("kept")); err != nil {
		t.Skipf("this file system does not hold user attributes: %v", err)
	}
	if err := WriteFileIn(openRoot(t, dir), "tagged.txt", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := getXattrPath(p, "user.tether.test")
	if err != nil || !bytes.Equal(v, []byte("kept")) {
		t.Fatalf("user.tether.test after the write: %q, %v", v, err)
	}
}

// needRoot skips a test that changes owners or mounts file systems.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (to change owners or mount a file system); CI runs the tests as root")
	}
}

func TestWriteKeepsOwnerAndGroup(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "theirs.txt")
	write(t, p, "old", 0o664)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o664|os.ModeSetgid)
	if err := WriteFileIn(openRoot(t, dir), "theirs.txt", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 65534 || st.Gid != 65534 {
		t.Fatalf("owner became %d:%d, want 65534:65534", st.Uid, st.Gid)
	}
	if fi.Mode()&KeptMode != 0o664|os.ModeSetgid {
		t.Fatalf("mode became %v", fi.Mode())
	}
}

// TestWriteRefusesWhenTheOwnerCannotBeKept runs a write as an unprivileged
// user over a file another user owns in a folder both may write: the
// rename would hand the file to the writer, so nothing is written.
func TestWriteRefusesWhenTheOwnerCannotBeKept(t *testing.T) {
	if os.Getenv("FSATOMIC_AS_NOBODY") == "1" {
		dir := os.Getenv("FSATOMIC_DIR")
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		err = WriteFileIn(root, "roots.txt", []byte("new"), 0o644)
		var me *MetadataError
		if !errors.As(err, &me) || !strings.HasPrefix(me.What, "owner") {
			t.Fatalf("writing another user's file: %v, want a MetadataError about the owner", err)
		}
		return
	}
	needRoot(t)
	dir, err := os.MkdirTemp("", "fsatomic-owner-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	p := filepath.Join(dir, "roots.txt")
	write(t, p, "old", 0o666)
	// The build folder is the builder's alone: run a copy nobody can reach.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "fsatomic.test")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestWriteRefusesWhenTheOwnerCannotBeKept$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FSATOMIC_AS_NOBODY=1", "FSATOMIC_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("the file was replaced: %q", b)
	}
	noTemps(t, dir)
}

// TestFailedWriteOnAFullDiskLeavesNothing fills a small tmpfs: the write
// fails and neither its temporary file nor the folders made for it stay.
func TestFailedWriteOnAFullDiskLeavesNothing(t *testing.T) {
	needRoot(t)
	dir := mountTmpfs(t, "64k")
	root := openRoot(t, dir)
	created, err := MkdirAllIn(root, filepath.Join("new", "deep"), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	err = WriteFileIn(root, filepath.Join("new", "deep", "big.txt"), bytes.Repeat([]byte("x"), 1<<20), 0o644)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("writing 1 MB into 64 KB: %v, want ENOSPC", err)
	}
	RemoveCreated(root, created)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// mountTmpfs mounts a tmpfs of size on a fresh folder for the test.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("tmpfs is mounted this way on Linux")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

func TestKeepMetaInCopiesAttributesAndSetsTheMode(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("user.* attributes are Linux's")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "now", 0o644)
	if err := setXattrPath(filepath.Join(dir, "f"), "user.tag", []byte("v")); err != nil {
		t.Skipf("no user attributes here: %v", err)
	}
	root := openRoot(t, dir)
	tmp, err := root.Create("tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	if err := KeepMetaIn(root, "f", tmp, 0o750); err != nil {
		t.Fatal(err)
	}
	fi, _ := tmp.Stat()
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750", fi.Mode())
	}
	if v, err := getXattrPath(filepath.Join(dir, "tmp"), "user.tag"); err != nil || string(v) != "v" {
		t.Errorf("user.tag = %q, %v", v, err)
	}
	// Nothing at the name: the mode alone.
	if err := KeepMetaIn(root, "absent", tmp, 0o600); err != nil {
		t.Fatal(err)
	}
}
