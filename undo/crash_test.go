package undo

import (
	"bufio"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// crashRuns is how many times the helper is killed.
const crashRuns = 30

// TestCrashAnywhere kills a process in the middle of changing a workspace,
// at random points, then checks that no file is half-written and that
// undoing every recorded request, newest first, walks the workspace back to
// the state before each one.
func TestCrashAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 30 processes")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	states := crashStates()
	for run := range crashRuns {
		// Half the runs kill right after a chosen step, the rest after a
		// delay from the start, both with a random extra delay so that the
		// kill lands at any point inside a step.
		afterStep := -1
		if run%2 == 0 {
			afterStep = rng.IntN(len(crashScript))
		}
		delay := time.Duration(rng.IntN(3000)) * time.Microsecond
		if afterStep < 0 {
			delay = time.Duration(rng.IntN(120_000)) * time.Microsecond
		}
		t.Run(fmt.Sprintf("run%02d", run), func(t *testing.T) {
			crashOnce(t, states, afterStep, delay)
		})
	}
}

func crashOnce(t *testing.T, states []map[string]string, afterStep int, delay time.Duration) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "undo")
	writeState(t, ws, states[0])

	done := runHelperUntilKilled(t, ws, dir, afterStep, delay)
	t.Logf("killed after %d completed steps (kill armed after step %d, +%v)", done, afterStep, delay)

	// No file is half-written: each is as before or after the step in flight.
	got := readState(t, ws)
	next := states[min(done+1, len(states)-1)]
	for _, p := range union(got, states[done], next) {
		g, gok := got[p]
		o, ook := states[done][p]
		n, nok := next[p]
		if !(gok == ook && g == o) && !(gok == nok && g == n) {
			t.Errorf("%s is neither its old nor its new content (exists %v, %d bytes)", p, gok, len(g))
		}
	}

	s, err := Open(ws, Options{Dir: dir})
	if err != nil {
		t.Fatalf("reopening the store after the crash: %v", err)
	}
	defer s.Close()
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	// Every request with a completed step has its checkpoint.
	for i := range done {
		if !hasRequest(list, crashScript[i].request) {
			t.Errorf("request %s finished a step but has no checkpoint", crashScript[i].request)
		}
	}
	for _, cp := range list {
		rep, err := s.Undo(cp.ID)
		if err != nil {
			t.Fatalf("undo %s (%s): %v", cp.ID, cp.RequestID, err)
		}
		if len(rep.Conflicts) > 0 {
			t.Errorf("undo %s: conflicts %+v", cp.RequestID, rep.Conflicts)
		}
		want := states[firstStep(cp.RequestID)]
		for _, d := range compareState(want, readState(t, ws)) {
			t.Errorf("after undoing %s: %s", cp.RequestID, d)
		}
	}
}

// runHelperUntilKilled starts the helper, kills it with SIGKILL after
// afterStep's line (or, for -1, from the start) plus delay, and returns how
// many steps it reported complete.
func runHelperUntilKilled(t *testing.T, ws, dir string, afterStep int, delay time.Duration) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashHelperEnv+"=1", crashWorkspace+"="+ws, crashStoreDir+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	done := 0
	kill := func() {
		time.Sleep(delay)
		cmd.Process.Kill()
	}
	if afterStep < 0 {
		kill()
	}
	for lines.Scan() {
		done++
		if done == afterStep+1 {
			kill()
		}
	}
	err = cmd.Wait()
	if err == nil && done < len(crashScript) {
		t.Fatalf("helper exited cleanly after %d steps: %s", done, stderr.String())
	}
	if err != nil && !strings.Contains(err.Error(), "killed") {
		t.Fatalf("helper failed: %v: %s", err, stderr.String())
	}
	return done
}

func firstStep(request string) int {
	for i, st := range crashScript {
		if st.request == request {
			return i
		}
	}
	return len(crashScript)
}

func hasRequest(list []Checkpoint, request string) bool {
	for _, cp := range list {
		if cp.RequestID == request {
			return true
		}
	}
	return false
}

func writeState(t *testing.T, root string, state map[string]string) {
	for p, content := range state {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readState reads the workspace's files, skipping the temporary files an
// atomic write killed midway leaves beside its target (never the target).
func readState(t *testing.T, root string) map[string]string {
	state := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(d.Name(), ".tether-") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		state[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func compareState(want, got map[string]string) []string {
	var out []string
	for _, p := range union(want, got) {
		w, wok := want[p]
		g, gok := got[p]
		switch {
		case wok && !gok:
			out = append(out, p+" is missing")
		case !wok && gok:
			out = append(out, p+" should not exist")
		case w != g:
			out = append(out, fmt.Sprintf("%s holds %q…, want %q…", p, clip(g), clip(w)))
		}
	}
	return out
}

func union(ms ...map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
