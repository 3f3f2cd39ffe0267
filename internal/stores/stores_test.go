package stores

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/protocol"
)

func isolate(t *testing.T) string {
	home := t.TempDir()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
	return t.TempDir()
}

func TestOpenClose(t *testing.T) {
	root := isolate(t)
	st, err := Open(root, Options{Jobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Undo == nil || st.Rules == nil || st.Staging == nil || st.Jobs == nil {
		t.Fatalf("not opened: %+v", st)
	}
	if err := st.Rules.Add(permission.Rule{Kind: protocol.ApprovalShell, Program: "make"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// A second session on the same project sees what the first saved.
	again, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if len(again.Rules.List()) != 1 || again.Jobs != nil {
		t.Fatalf("rules %v, jobs %v", again.Rules.List(), again.Jobs)
	}
}

// A damaged allow.json must not stop the session, and must not be read as
// "everything allowed": every step then asks.
func TestCorruptRulesAskEverything(t *testing.T) {
	root := isolate(t)
	if err := os.MkdirAll(filepath.Dir(RulesPath(root)), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(RulesPath(root), []byte("{broken"), 0o600)
	st, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Rules.Allows(protocol.ApprovalRequestParams{Kind: protocol.ApprovalEdit}, nil) || len(st.Rules.List()) != 0 {
		t.Fatal("a corrupt rules file must allow nothing")
	}
}

// killedWhileWriting leaves what a Tether killed while it wrote leaves in
// st's undo store: the mark of a writer whose process is gone (see
// undo/writers.go), which a clean Close removes.
func killedWhileWriting(t *testing.T, st *Stores) {
	t.Helper()
	dir := filepath.Join(st.Undo.Dir(), "writers")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "2147483646-0badc0de"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A write killed mid-way leaves a temporary file beside its target; the
// next session clears it for the files recent requests touched. After a
// clean stop it reads no checkpoint to look for such debris, which only a
// crash leaves.
func TestOpenSweepsTempsOfInterruptedWrites(t *testing.T) {
	for _, crashed := range []bool{true, false} {
		t.Run(fmt.Sprintf("crashed=%v", crashed), func(t *testing.T) {
			root := isolate(t)
			target := filepath.Join(root, "a.txt")
			os.WriteFile(target, []byte("v1"), 0o644)
			st, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Undo.Save("r1", target); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(target, []byte("v2"), 0o644)
			if err := st.Undo.Wrote("r1", target); err != nil {
				t.Fatal(err)
			}
			st.Close()
			if crashed {
				killedWhileWriting(t, st)
			}
			leftover := filepath.Join(root, ".a.txt.tether-2147483646-1")
			os.WriteFile(leftover, []byte("partial"), 0o600)
			again, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if again.Undo.WriterDied() != crashed {
				t.Errorf("the store says a writer died: %v, want %v", again.Undo.WriterDied(), crashed)
			}
			if _, err := os.Stat(leftover); os.IsNotExist(err) != crashed {
				t.Errorf("the leftover is swept: %v, want %v", os.IsNotExist(err), crashed)
			}
		})
	}
}

// The next start after a Tether died taking a command's changes in tells
// it, and removes the layers it left.
func TestOpenReportsAnInterruptedSetAndSweepsLayers(t *testing.T) {
	root := isolate(t)
	st, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Undo.SaveSet("r1", []string{filepath.Join(root, "a.txt")}, "the changes of `make`"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	killedWhileWriting(t, st)
	stale := filepath.Join(project.StateDir(root), "layers", "20260101-000000-0123abcd")
	if err := os.MkdirAll(filepath.Join(stale, "0", "upper"), 0o700); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	st, err = Open(root, Options{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !strings.Contains(logged.String(), "were being applied when Tether stopped") || !strings.Contains(logged.String(), "the changes of `make`") {
		t.Errorf("the interrupted set is not reported:\n%s", logged.String())
	}
	if runtime.GOOS == "linux" {
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Errorf("the stale layers are still there: %v", err)
		}
	}
}
