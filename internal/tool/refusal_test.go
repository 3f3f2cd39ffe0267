package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

func TestFileTroubleSortsWhatTheModelCanActOnFromFaults(t *testing.T) {
	cases := []struct {
		name    string
		err     error
		refusal bool
	}{
		{"missing", &fs.PathError{Op: "open", Path: "/w/a.go", Err: fs.ErrNotExist}, true},
		{"not allowed", &fs.PathError{Op: "open", Path: "/w/a.go", Err: fs.ErrPermission}, true},
		{"swapped for a pipe", &fs.PathError{Op: "open", Path: "/w/a.go", Err: fmt.Errorf("%w: a named pipe", fsatomic.ErrNotRegular)}, true},
		{"read-only", fsatomic.ErrReadOnly, true},
		{"i/o error", &fs.PathError{Op: "read", Path: "/w/a.go", Err: syscall.EIO}, false},
		{"bare i/o error", syscall.EIO, false},
		{"anything else", errors.New("the disk fell off"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := FileTrouble("open", "a.go", tc.err)
			if got := IsRefusal(err); got != tc.refusal {
				t.Fatalf("IsRefusal(%v) = %v, want %v", err, got, tc.refusal)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("%v does not wrap %v", err, tc.err)
			}
			if tc.refusal {
				if want := "cannot open a.go: " + tc.err.Error(); err.Error() != want {
					t.Errorf("refusal says %q, want %q", err, want)
				}
				return
			}
			op, path := faultPlace(err)
			if op == "" || path == "" {
				t.Errorf("the fault %v names no operation and path", err)
			}
		})
	}
	if FileTrouble("open", "a.go", nil) != nil {
		t.Error("no error must stay no error")
	}
}

func TestFileTroubleKeepsTheFaultsOwnPlace(t *testing.T) {
	err := FileTrouble("read", "a.go", &fs.PathError{Op: "read", Path: "/w/a.go", Err: syscall.EIO})
	if op, path := faultPlace(err); op != "read" || path != "/w/a.go" {
		t.Fatalf("faultPlace = %q %q, want the system call's own read /w/a.go", op, path)
	}
	err = FileTrouble("list", "src", syscall.EIO)
	if op, path := faultPlace(err); op != "list" || path != "src" {
		t.Fatalf("faultPlace = %q %q, want list src for an error that names no place", op, path)
	}
}

// failing is a tool that returns the error the test gives it.
type failArgs struct{}

func failingRegistry(err error, res Result) *Registry {
	return NewRegistry(New(Def[failArgs]{
		Name: "failing", Doc: "Fails as told.", Risk: protocol.RiskLow, ReadOnly: true, Repeatable: true,
		Run: func(context.Context, *Call, failArgs) (Result, error) { return res, err },
	}))
}

// invokeLogged runs the failing tool and returns its result and the log.
func invokeLogged(t *testing.T, reg *Registry) (Result, string) {
	t.Helper()
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	env := &Env{Workspace: ws, Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	res := reg.Invoke(context.Background(), &Call{Name: "failing", RequestID: "r1", Budget: NewBudget(0, 0), Session: NewSession(), Env: env})
	return res, log.String()
}

func TestInvokeTellsARefusalFromAFault(t *testing.T) {
	t.Run("refusal", func(t *testing.T) {
		advice := "read a.go with read_file before you edit it"
		for _, err := range []error{Refusef("%s", advice), fmt.Errorf("while editing: %w", Refusef("%s", advice))} {
			res, log := invokeLogged(t, failingRegistry(err, Result{}))
			if !res.IsError || !strings.HasSuffix(res.Content, advice) || strings.Contains(res.Content, "Tether failed") {
				t.Errorf("%v: result %+v, want the advice as an error result", err, res)
			}
			if strings.Contains(log, "level=ERROR") {
				t.Errorf("a refusal was logged as an error:\n%s", log)
			}
		}
	})
	t.Run("fault", func(t *testing.T) {
		eio := &fs.PathError{Op: "read", Path: "/w/a.go", Err: syscall.EIO}
		res, log := invokeLogged(t, failingRegistry(eio, Result{}))
		if !res.IsError || !strings.HasPrefix(res.Content, "Tether failed: failing could not finish") || !strings.Contains(res.Content, eio.Error()) {
			t.Errorf("result %+v, want Tether's failure with the operation, path and error", res)
		}
		for _, want := range []string{"level=ERROR", `msg="tool fault"`, "op=read", "path=/w/a.go", "tool=failing"} {
			if !strings.Contains(log, want) {
				t.Errorf("the log lacks %s:\n%s", want, log)
			}
		}
	})
	t.Run("fault told by the tool", func(t *testing.T) {
		told := Result{Content: "writing a.go failed; b.go was written before it"}
		res, log := invokeLogged(t, failingRegistry(syscall.ENOSPC, told))
		if !res.IsError || res.Content != told.Content {
			t.Errorf("result %+v, want the tool's own account of the fault", res)
		}
		if !strings.Contains(log, "level=ERROR") {
			t.Errorf("the fault was not logged as an error:\n%s", log)
		}
	})
}
