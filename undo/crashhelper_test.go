package undo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// The crash test runs this test binary a second time as a helper that
// changes a workspace the way Tether's tools do, and kills it at random
// moments. The helper is selected by an environment variable in TestMain.
const (
	crashHelperEnv   = "TETHER_UNDO_CRASH_HELPER"
	crashWorkspace   = "TETHER_UNDO_CRASH_WORKSPACE"
	crashStoreDir    = "TETHER_UNDO_CRASH_STORE"
	crashContentSize = 96 << 10
)

type opKind int

const (
	opWrite opKind = iota // create or replace
	opDelete
	opMove
)

// scriptStep is one tool call's change.
type scriptStep struct {
	request string
	kind    opKind
	path    string
	to      string // a move's destination
}

// crashInitial is the workspace before the script runs.
var crashInitial = []string{"a.txt", "b.txt", "c.txt", "d.txt", "sub/e.txt"}

// crashScript covers every kind of change, paths touched twice in one
// request, paths reused across requests, and moves into new folders.
var crashScript = []scriptStep{
	{"r1", opWrite, "a.txt", ""},
	{"r1", opWrite, "new1.txt", ""},
	{"r1", opWrite, "a.txt", ""},
	{"r1", opDelete, "b.txt", ""},
	{"r2", opMove, "c.txt", "moved/c.txt"},
	{"r2", opWrite, "moved/c.txt", ""},
	{"r2", opWrite, "sub/f.txt", ""},
	{"r3", opWrite, "d.txt", ""},
	{"r3", opDelete, "sub/e.txt", ""},
	{"r3", opMove, "new1.txt", "new2.txt"},
	{"r4", opWrite, "a.txt", ""},
	{"r4", opWrite, "sub/f.txt", ""},
	{"r4", opWrite, "b.txt", ""},
	{"r4", opMove, "d.txt", "d2.txt"},
	{"r5", opDelete, "a.txt", ""},
	{"r5", opWrite, "a.txt", ""},
	{"r5", opWrite, "new2.txt", ""},
	{"r6", opWrite, "moved/c.txt", ""},
	{"r6", opDelete, "d2.txt", ""},
	{"r6", opMove, "b.txt", "b2.txt"},
}

// crashContent is what step i writes to path (i < 0: the initial file):
// large enough that a kill lands inside a write now and then.
func crashContent(i int, path string) []byte {
	line := fmt.Sprintf("step %d wrote %s\n", i, path)
	return bytes.Repeat([]byte(line), crashContentSize/len(line))
}

// crashStates returns the workspace after each number of steps:
// states[0] is the initial one, states[len(crashScript)] the final one.
func crashStates() []map[string]string {
	cur := map[string]string{}
	for _, p := range crashInitial {
		cur[p] = string(crashContent(-1, p))
	}
	states := []map[string]string{clone(cur)}
	for i, st := range crashScript {
		switch st.kind {
		case opWrite:
			cur[st.path] = string(crashContent(i, st.path))
		case opDelete:
			delete(cur, st.path)
		case opMove:
			cur[st.to] = cur[st.path]
			delete(cur, st.path)
		}
		states = append(states, clone(cur))
	}
	return states
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// runCrashHelper runs the script against the workspace and store named in
// the environment, printing a line after each completed step.
func runCrashHelper() int {
	ws, dir := os.Getenv(crashWorkspace), os.Getenv(crashStoreDir)
	s, err := Open(ws, Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for i, st := range crashScript {
		if err := runStep(s, ws, i, st); err != nil {
			fmt.Fprintf(os.Stderr, "step %d: %v\n", i, err)
			return 1
		}
		// Unbuffered: a line is printed only once its step is complete.
		fmt.Fprintf(os.Stdout, "step %d\n", i)
	}
	return 0
}

func runStep(s *Store, ws string, i int, st scriptStep) error {
	p := filepath.Join(ws, filepath.FromSlash(st.path))
	switch st.kind {
	case opWrite:
		if err := s.Save(st.request, p); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := fsatomic.WriteFile(p, crashContent(i, st.path), 0o644); err != nil {
			return err
		}
		return s.Wrote(st.request, p)
	case opDelete:
		if err := s.Save(st.request, p); err != nil {
			return err
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		if err := fsatomic.SyncDir(filepath.Dir(p)); err != nil {
			return err
		}
		return s.Wrote(st.request, p)
	}
	to := filepath.Join(ws, filepath.FromSlash(st.to))
	for _, q := range []string{p, to} {
		if err := s.Save(st.request, q); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := fsatomic.RenameNoReplace(p, to); err != nil {
		return err
	}
	if err := s.Wrote(st.request, p); err != nil {
		return err
	}
	return s.Wrote(st.request, to)
}
