package tool

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// changeEnv is a workspace in dir, in bypass mode (nothing asks), with the
// project's real undo store.
func changeEnv(t *testing.T, dir string) (*Env, *stores.Stores) {
	t.Helper()
	home := t.TempDir()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	st, err := stores.Open(ws.Primary(), stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	env := &Env{Workspace: ws, Settings: Settings{Mode: protocol.ModeBypass, SettleTime: -1}}
	env.Attach(st)
	return env, st
}

func newCall(env *Env, name string) *Call {
	return &Call{Name: name, RequestID: "req-1", Budget: NewBudget(0, 0), Session: NewSession(), Env: env}
}

// create is a plan that makes a new file at rel.
func create(t *testing.T, env *Env, rel, content string) *Plan {
	t.Helper()
	loc, err := env.Workspace.Locate(rel)
	if err != nil {
		t.Fatal(err)
	}
	return &Plan{Title: "Create " + rel, Done: "created", Changes: []Change{{Kind: Write, Path: loc, After: []byte(content), FullyKnown: true}}}
}

// TestWritesStayInsideWhileAFolderIsSwapped runs the change pipeline in a
// loop while another goroutine swaps a workspace folder for a link to a
// place outside and back: no file and no temporary file may ever appear
// outside, whatever the timing.
func TestWritesStayInsideWhileAFolderIsSwapped(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	env, _ := changeEnv(t, dir)
	root := env.Workspace.Primary()
	sub, aside := filepath.Join(root, "d"), filepath.Join(root, "d.real")
	os.Mkdir(sub, 0o755)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if os.Rename(sub, aside) == nil {
				os.Symlink(outside, sub)
				time.Sleep(100 * time.Microsecond)
				os.Remove(sub)
				os.Rename(aside, sub)
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	for i := range 300 {
		loc, err := env.Workspace.Locate(filepath.Join("d", "f.txt"))
		if err != nil || !loc.Inside {
			continue // the check itself caught the link
		}
		ch := Change{Kind: Write, Path: loc, After: []byte(strconv.Itoa(i))}
		if b, err := os.ReadFile(loc.Real); err == nil {
			ch.Before, ch.Existed = b, true
		}
		newCall(env, "write_file").Apply(context.Background(), &Plan{Title: "w", Changes: []Change{ch}})
	}
	close(stop)
	<-done
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("the pipeline wrote outside the workspace: %v", entries)
	}
}

func TestReadOnlyFileIsRefusedBeforeAsking(t *testing.T) {
	dir := t.TempDir()
	env, _ := changeEnv(t, dir)
	p := filepath.Join(env.Workspace.Primary(), "locked.txt")
	os.WriteFile(p, []byte("a\n"), 0o444)
	os.Chmod(p, 0o444)
	loc, _ := env.Workspace.Locate("locked.txt")
	_, err := newCall(env, "edit_file").LoadForChange(loc, "edit", NoRead)
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "chmod u+w locked.txt") && runtime.GOOS != "windows" {
		t.Fatalf("LoadForChange of a 0444 file: %v", err)
	}
	// Should the file turn read-only after the plan was made, the write
	// itself refuses, as a refusal rather than a fault.
	os.Chmod(p, 0o644)
	cur, err := newCall(env, "edit_file").LoadForChange(loc, "edit", NoRead)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o444)
	r, err := newCall(env, "edit_file").Apply(context.Background(), &Plan{Title: "Edit", Changes: []Change{{Kind: Write, Path: loc, Before: cur.Data, Existed: true, After: []byte("b\n")}}})
	if err != nil || !r.IsError || !strings.Contains(r.Content, "read-only") {
		t.Fatalf("writing a file made read-only meanwhile: %v %+v", err, r)
	}
	if b, _ := os.ReadFile(p); string(b) != "a\n" {
		t.Fatalf("the read-only file changed: %q", b)
	}
}

func TestNewNamesWithControlCharactersAreRefused(t *testing.T) {
	env, st := changeEnv(t, t.TempDir())
	for _, name := range []string{"evil\nname.txt", "a\rb.txt", "esc\x1b[2Jx"} {
		r, err := newCall(env, "write_file").Apply(context.Background(), create(t, env, name, "x"))
		if err != nil || !r.IsError || !strings.Contains(r.Content, "control character") {
			t.Errorf("creating %q: %v %+v", name, err, r)
		}
		if _, err := os.Lstat(filepath.Join(env.Workspace.Primary(), name)); err == nil {
			t.Errorf("%q was created", name)
		}
	}
	if cps, _ := st.Undo.List(); len(cps) != 0 {
		t.Fatalf("refused names left checkpoints: %v", cps)
	}
}

func TestQuotePathLikeGit(t *testing.T) {
	for in, want := range map[string]string{
		"a/plain.go":         "a/plain.go",
		"a/ümlaut 日本.go":     "a/ümlaut 日本.go",
		"a/new\nline":        `"a/new\nline"`,
		"b/tab\there":        `"b/tab\there"`,
		`a/quo"te`:           `"a/quo\"te"`,
		`a/back\slash`:       `"a/back\\slash"`,
		"a/esc\x1b":          `"a/esc\033"`,
		"a/sep\u2028x":       `"a/sep\342\200\250x"`,
		"a/cr\r":             `"a/cr\r"`,
		"a/bell\a\b\f\v\x7f": `"a/bell\a\b\f\v\177"`,
	} {
		if got := QuotePath(in); got != want {
			t.Errorf("QuotePath(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDiffHeadersOfExistingOddNamesAreQuoted edits a file whose existing
// name holds a newline: the diff header stays one line.
func TestDiffHeadersOfExistingOddNamesAreQuoted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows names cannot hold a newline")
	}
	env, _ := changeEnv(t, t.TempDir())
	name := "odd\nname.txt"
	os.WriteFile(filepath.Join(env.Workspace.Primary(), name), []byte("a\n"), 0o644)
	loc, _ := env.Workspace.Locate(name)
	d := newCall(env, "edit_file").diffOf(Change{Kind: Write, Path: loc, Existed: true, Before: []byte("a\n"), After: []byte("b\n")})
	if !strings.Contains(d, `--- "a/odd\nname.txt"`) || !strings.Contains(d, `+++ "b/odd\nname.txt"`) {
		t.Fatalf("diff headers not quoted:\n%s", d)
	}
}

func TestFaultReportSaysWhatIsTrue(t *testing.T) {
	env, _ := changeEnv(t, t.TempDir())
	c := newCall(env, "write_file")
	p := create(t, env, "a.txt", "x")
	p.Changes = append(p.Changes, create(t, env, "b.txt", "y").Changes...)

	notDurable := &fsatomic.DurabilityError{Op: "write", Path: "a.txt", Err: errors.New("input/output error")}
	msg := c.faultReport(p, 0, notDurable)
	if strings.Contains(msg, "a.txt was not changed") || !strings.Contains(msg, "a.txt was changed as asked") || !strings.Contains(msg, "These were not changed: b.txt") {
		t.Errorf("a write whose rename happened is reported as: %s", msg)
	}
	msg = c.faultReport(p, 1, errors.New("no space left on device"))
	if !strings.Contains(msg, "b.txt was not changed") || !strings.Contains(msg, "These were written before it: a.txt") {
		t.Errorf("a write that failed is reported as: %s", msg)
	}
}

func TestMetadataThatCannotBeKeptIsARefusal(t *testing.T) {
	env, _ := changeEnv(t, t.TempDir())
	c := newCall(env, "edit_file")
	p := create(t, env, "theirs.txt", "x")
	msg, ok := c.refusal(p, 0, &fsatomic.MetadataError{Path: "theirs.txt", What: "owner (user id 1001)", Err: fs.ErrPermission})
	if !ok || !strings.Contains(msg, "could not keep the old one's owner") || !strings.Contains(msg, "nothing was written") {
		t.Fatalf("refusal: %v %s", ok, msg)
	}
	if _, ok := c.refusal(p, 0, errors.New("disk on fire")); ok {
		t.Fatal("a plain fault was taken for a refusal")
	}
}

// TestMoveOntoAFileThatAppearedIsARefusal moves onto a name that someone
// created between the check and the rename.
func TestMoveOntoAFileThatAppearedIsARefusal(t *testing.T) {
	env, st := changeEnv(t, t.TempDir())
	root := env.Workspace.Primary()
	os.WriteFile(filepath.Join(root, "from.txt"), []byte("f"), 0o644)
	from, _ := env.Workspace.Locate("from.txt")
	to, _ := env.Workspace.Locate("to.txt")
	c := newCall(env, "move_file")
	os.WriteFile(filepath.Join(root, "to.txt"), []byte("theirs"), 0o644)
	// Past verifyUnchanged, straight to the rename.
	err := c.applyOne(Change{Kind: Move, Path: to, From: from, Existed: true})
	msg, ok := c.refusal(&Plan{Changes: []Change{{Kind: Move, Path: to, From: from}}}, 0, err)
	if !errors.Is(err, fsatomic.ErrExists) || !ok || !strings.Contains(msg, "never overwrites") {
		t.Fatalf("move onto a new file: %v / %s", err, msg)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "to.txt")); string(b) != "theirs" {
		t.Fatal("the file that appeared was overwritten")
	}
	if cps, _ := st.Undo.List(); len(cps) != 0 {
		t.Fatalf("a move that did not happen left a checkpoint: %+v", cps)
	}
}

// TestFailedWriteOnAFullDiskLeavesNoFolderAndNoCheckpoint writes into a
// small tmpfs: the write fails, the folders made for it are gone, and the
// undo store holds no entry for a file that was never written.
func TestFailedWriteOnAFullDiskLeavesNoFolderAndNoCheckpoint(t *testing.T) {
	if os.Geteuid() != 0 || runtime.GOOS != "linux" {
		t.Skip("needs root on Linux to mount a small tmpfs; CI runs the tests as root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	env, st := changeEnv(t, dir)
	os.WriteFile(filepath.Join(dir, "kept.txt"), []byte("old\n"), 0o644)

	big := strings.Repeat("x", 1<<20)
	r, err := newCall(env, "write_file").Apply(context.Background(), create(t, env, filepath.Join("new", "deep", "big.txt"), big))
	if err == nil || !r.IsError || !strings.Contains(r.Content, "was not changed") {
		t.Fatalf("a write into a full disk: %v %+v", err, r)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Fatal("the folders made for the failed write are still there")
	}
	// An existing file too: its undo entry is dropped again.
	loc, _ := env.Workspace.Locate("kept.txt")
	r, err = newCall(env, "write_file").Apply(context.Background(), &Plan{Title: "Overwrite", Changes: []Change{{Kind: Write, Path: loc, Existed: true, Before: []byte("old\n"), After: []byte(big)}}})
	if err == nil || !r.IsError {
		t.Fatalf("overwriting on a full disk: %v %+v", err, r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "kept.txt")); !bytes.Equal(b, []byte("old\n")) {
		t.Fatalf("the file changed: %q", b)
	}
	if cps, err := st.Undo.List(); err != nil || len(cps) != 0 {
		t.Fatalf("checkpoints after failed writes: %+v %v", cps, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left in the workspace: %v", entries)
	}
}

// TestImmutableFileIsRefused uses chattr +i: the rename over it fails, the
// answer says the file does not allow it, and nothing is recorded.
func TestImmutableFileIsRefused(t *testing.T) {
	if os.Geteuid() != 0 || runtime.GOOS != "linux" {
		t.Skip("needs root on Linux for chattr; CI runs the tests as root")
	}
	env, st := changeEnv(t, t.TempDir())
	p := filepath.Join(env.Workspace.Primary(), "frozen.txt")
	os.WriteFile(p, []byte("a\n"), 0o644)
	if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
	loc, _ := env.Workspace.Locate("frozen.txt")
	r, err := newCall(env, "edit_file").Apply(context.Background(), &Plan{Title: "Edit", Changes: []Change{{Kind: Write, Path: loc, Existed: true, Before: []byte("a\n"), After: []byte("b\n")}}})
	if err != nil || !r.IsError || !strings.Contains(r.Content, "does not allow it") {
		t.Fatalf("editing an immutable file: %v %+v", err, r)
	}
	if cps, _ := st.Undo.List(); len(cps) != 0 {
		t.Fatalf("a refused write left a checkpoint: %+v", cps)
	}
}
