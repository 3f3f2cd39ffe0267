package daemon_test

// TestCrash kills the real `tether serve` with SIGKILL at random points of
// a scripted stream of edits, moves and deletes across several requests,
// then checks the workspace file by file against the test's model and
// undoes every recorded request through a fresh daemon.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/protocol"
)

const (
	// crashRuns is how many runs kill the daemon; one more run, the
	// control, lets the script finish and checks the model against it.
	crashRuns = 32
	// crashSpread scales the random delay between the reply a kill is
	// armed after and the kill: up to this many times the next step's
	// duration in the control run, so kills land anywhere inside the step
	// (its undo save, mid-write, between rename and reply) and sometimes
	// in the one after.
	crashSpread = 1.5
	// crashBudget lets read_file show the largest file whole (an overwrite
	// needs every line read) and write_file carry it in one call.
	crashBudget = 1 << 20
	// crashSeedEnv replays a run's kill schedule.
	crashSeedEnv = "TETHER_CRASH_SEED"
)

// atomicTemp matches the temporary files fsatomic.WriteFile and undo's
// restore create beside their target: ".<name>.tether-<pid>-<random>"
// (the writer's pid lets a later writer sweep leftovers of dead ones), or
// ".<name>.tether-undo-<random>" for undo's restores.
var atomicTemp = regexp.MustCompile(`^\.(.+)\.tether-(undo-)?(?:[0-9]+-)?[0-9]+$`)

// crashPlan is when one run kills the daemon: once afterReplies replies
// have arrived, delay later. A negative afterReplies never kills.
type crashPlan struct {
	afterReplies int
	delay        time.Duration
}

// crashTally counts where the kills landed, across runs.
type crashTally struct {
	runs     int
	inFlight map[string]int // kills by the tool of the step in flight
	// What the step in flight had done when the kill landed.
	killsInRead, oldKept, newWritten, scriptDone int
	// noCheckpoint counts kills in a request's first change before it
	// saved anything for undo.
	noCheckpoint int
	tempFiles    []string
	// replaced counts files undo put back over content Tether had written
	// without recording it (killed between the rename and the record).
	replaced int
	undone   int
}

func TestCrash(t *testing.T) {
	binary(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(crashSeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", crashSeedEnv, s, err)
		}
	}
	t.Logf("seed %d (replay the kill schedule with %s=%d)", seed, crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))

	initial, script := crashInitial(), crashScript()
	states, err := crashStates(initial, script)
	if err != nil {
		t.Fatal(err)
	}
	tally := &crashTally{inFlight: map[string]int{}}
	start := time.Now()
	// The control run times each step, to aim the kills.
	var took []time.Duration
	if !t.Run("control", func(t *testing.T) {
		took = crashRun(t, states, script, crashPlan{afterReplies: -1}, tally)
	}) {
		t.FailNow()
	}
	t.Logf("the control run's steps took %v", took)
	for run := range crashRuns {
		k := rng.IntN(len(script))
		plan := crashPlan{afterReplies: k, delay: time.Duration(rng.Float64() * crashSpread * float64(took[k]))}
		t.Run(fmt.Sprintf("kill%02d", run), func(t *testing.T) {
			crashRun(t, states, script, plan, tally)
		})
	}
	var inFlight []string
	for tool, n := range tally.inFlight {
		inFlight = append(inFlight, fmt.Sprintf("%s %d", tool, n))
	}
	sort.Strings(inFlight)
	t.Logf("%d kills in %v; step in flight: %s; after the kill its files held the old content %d times, the new %d times (%d kills hit a read, %d came after the last step)",
		tally.runs, time.Since(start).Round(time.Millisecond), strings.Join(inFlight, ", "), tally.oldKept, tally.newWritten, tally.killsInRead, tally.scriptDone)
	t.Logf("the in-flight request had no checkpoint yet %d times; undo put back %d checkpoints, %d files over content Tether had not confirmed writing", tally.noCheckpoint, tally.undone, tally.replaced)
	t.Logf("temporary files the kills left in the workspace: %d %v", len(tally.tempFiles), tally.tempFiles)
}

// crashRun runs the script against a fresh workspace until the plan's
// kill, checks the files, then undoes everything through a new daemon.
// It returns how long each step took to answer.
func crashRun(t *testing.T, states []wsImage, script []crashStep, plan crashPlan, tally *crashTally) []time.Duration {
	ws := t.TempDir()
	home := t.TempDir()
	writeImage(t, ws, states[0])

	p := startCrashDaemon(t, ws, home)
	p.initialize(&protocol.Settings{PermissionMode: protocol.ModeBypass})
	done, checkpoints, took := driveUntilKilled(t, p, states, script, plan)
	if p.GroupAlive() {
		t.Fatal("a process of the killed daemon's group is still running")
	}
	if len(p.approvalsAsked()) > 0 {
		t.Errorf("bypass mode asked for approval: %+v", p.approvalsAsked())
	}

	// Every file is as before the step in flight or as after it: never a
	// mix, never cut short.
	got, temps := readImage(t, ws)
	before, after := states[done], states[min(done+1, len(script))]
	matchesBefore, matchesAfter := len(diffImages(before, got)) == 0, len(diffImages(after, got)) == 0
	if !matchesBefore && !matchesAfter {
		t.Errorf("after %d steps the workspace is neither as before step %d nor as after it", done, done)
		for _, d := range diffImages(before, got) {
			t.Errorf("against before: %s", d)
		}
		for _, d := range diffImages(after, got) {
			t.Errorf("against after: %s", d)
		}
	}
	checkTemps(t, temps, script, done, plan)
	if plan.afterReplies >= 0 {
		tallyKill(tally, script, done, matchesAfter, temps)
	}

	q := startCrashDaemon(t, ws, home)
	q.initialize(nil)
	undoAll(t, q, states, script, done, checkpoints, tally)
	// The restarted daemon sweeps the temporary files of the killed one.
	if got, temps2 := readImage(t, ws); len(diffImages(states[0], got)) > 0 || len(temps2) > 0 {
		t.Errorf("after a restart and undoing every checkpoint the workspace is not as it was: %v (temporary files %v, %v after the kill)", diffImages(states[0], got), temps2, temps)
	}
	q.finish()
	return took
}

// startCrashDaemon starts `tether serve` on workspace ws with the XDG
// folders under home, so that a second daemon finds the first one's undo
// checkpoints.
func startCrashDaemon(t *testing.T, ws, home string) *proc {
	t.Helper()
	return startDaemonProc(t, ws, home, "", false)
}

// driveUntilKilled sends the script's calls one at a time and kills the
// daemon as planned. It returns how many steps replied (the next one was
// in flight), the checkpoint each request's replies named, and how long
// each answered step took. Without a kill it checks every step against the
// model and ends the daemon cleanly.
func driveUntilKilled(t *testing.T, p *proc, states []wsImage, script []crashStep, plan crashPlan) (done int, checkpoints map[string]string, took []time.Duration) {
	t.Helper()
	// A call returns when the daemon dies only if its context ends: the
	// connection closing does not answer it.
	ctx, cancel := context.WithCancel(waitCtx(t))
	var killed atomic.Bool
	arm := make(chan struct{})
	killDone := make(chan struct{})
	defer func() {
		cancel()
		<-killDone
	}()
	go func() {
		defer close(killDone)
		select {
		case <-arm:
		case <-ctx.Done():
			return
		}
		time.Sleep(plan.delay)
		killed.Store(true)
		p.Kill()
		<-p.Done()
		cancel()
	}()

	checkpoints = map[string]string{}
	for i, st := range script {
		if i == plan.afterReplies {
			close(arm)
		}
		var res protocol.ToolCallResult
		sent := time.Now()
		_, err := p.Call(ctx, protocol.MethodToolsCall, map[string]any{"name": st.tool, "arguments": st.args, "requestId": st.request, "tokenBudget": crashBudget}, &res)
		if err != nil {
			if !killed.Load() {
				t.Fatalf("step %d (%s): %v; the daemon was not killed; stderr:\n%s", i, st, err, p.Stderr())
			}
			break
		}
		if res.IsError {
			t.Fatalf("step %d (%s) failed: %s", i, st, res.Content)
		}
		if res.Checkpoint != "" {
			if prev, ok := checkpoints[st.request]; ok && prev != res.Checkpoint {
				t.Errorf("request %s answered with checkpoint %s, then %s", st.request, prev, res.Checkpoint)
			}
			checkpoints[st.request] = res.Checkpoint
		} else if st.change != nil {
			t.Errorf("step %d (%s) changed the workspace but named no checkpoint", i, st)
		}
		took = append(took, time.Since(sent).Round(10*time.Microsecond))
		done++
		if plan.afterReplies < 0 {
			if d := diffImages(states[done], mustReadImage(t, p.dir)); len(d) > 0 {
				t.Fatalf("after step %d (%s) the workspace differs from the model: %v", i, st, d)
			}
		}
	}
	if plan.afterReplies < 0 {
		p.finish()
		return done, checkpoints, took
	}
	<-killDone
	if _, err := p.Wait(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed %v after reply %d, with %d steps answered", plan.delay.Round(time.Microsecond), plan.afterReplies, done)
	return done, checkpoints, took
}

// checkTemps allows temporary files only beside a file the step in flight
// was writing: a completed step must leave none.
func checkTemps(t *testing.T, temps []string, script []crashStep, done int, plan crashPlan) {
	t.Helper()
	if len(temps) > 0 && (plan.afterReplies < 0 || done == len(script)) {
		t.Errorf("temporary files were left though no step was cut short: %v", temps)
		return
	}
	for _, tmp := range temps {
		m := atomicTemp.FindStringSubmatch(path.Base(tmp))
		target := path.Join(path.Dir(tmp), m[1])
		if m[2] != "" || !slices.Contains(script[done].writes, target) {
			t.Errorf("temporary file %s was left, but the step in flight (%s) was not writing %s", tmp, script[done], target)
		}
	}
}

func tallyKill(tally *crashTally, script []crashStep, done int, matchesAfter bool, temps []string) {
	tally.runs++
	tally.tempFiles = append(tally.tempFiles, temps...)
	switch {
	case done == len(script):
		tally.scriptDone++
		return
	case script[done].change == nil:
		tally.killsInRead++
	case matchesAfter:
		tally.newWritten++
	default:
		tally.oldKept++
	}
	tally.inFlight[script[done].tool]++
}

// undoAll undoes every checkpoint undo/list shows, newest first, checking
// after each that the workspace is as before that request; and that every
// request that changed a file has its checkpoint.
func undoAll(t *testing.T, p *proc, states []wsImage, script []crashStep, done int, replied map[string]string, tally *crashTally) {
	t.Helper()
	var list protocol.UndoListResult
	if _, err := p.Call(waitCtx(t), protocol.MethodUndoList, struct{}{}, &list); err != nil {
		t.Fatalf("undo/list: %v", err)
	}
	byRequest := map[string]protocol.Checkpoint{}
	for i, cp := range list.Checkpoints {
		if i > 0 && cp.Created.After(list.Checkpoints[i-1].Created) {
			t.Errorf("undo/list is not newest first: %s before %s", list.Checkpoints[i-1].ID, cp.ID)
		}
		if _, dup := byRequest[cp.RequestID]; dup {
			t.Errorf("request %s has two checkpoints", cp.RequestID)
		}
		byRequest[cp.RequestID] = cp
		if first := firstStepOf(script, cp.RequestID); first > done {
			t.Errorf("request %s has checkpoint %s, but none of its steps had started", cp.RequestID, cp.ID)
		}
	}
	for req, id := range replied {
		if byRequest[req].ID != id {
			t.Errorf("a reply named checkpoint %s for request %s, but undo/list has %+v", id, req, byRequest[req])
		}
	}
	for i := range min(done, len(script)) {
		if script[i].change != nil && byRequest[script[i].request].ID == "" {
			t.Errorf("request %s completed step %d (%s) but has no checkpoint", script[i].request, i, script[i])
		}
	}
	if done < len(script) && script[done].change != nil && byRequest[script[done].request].ID == "" {
		// Killed before the request's first save: it must have written nothing.
		tally.noCheckpoint++
		got, _ := readImage(t, p.dir)
		if d := diffImages(states[done], got); len(d) > 0 {
			t.Errorf("request %s has no checkpoint, yet its step %d (%s) changed the workspace: %v", script[done].request, done, script[done], d)
		}
	}

	for _, cp := range list.Checkpoints {
		if cp.Undone {
			t.Errorf("checkpoint %s is undone, but nothing undid it", cp.ID)
			continue
		}
		var res protocol.UndoResult
		if _, err := p.Call(waitCtx(t), protocol.MethodUndoUndo, protocol.UndoParams{ID: cp.ID}, &res); err != nil {
			t.Fatalf("undo/undo %s (request %s): %v", cp.ID, cp.RequestID, err)
		}
		if len(res.Conflicts) > 0 {
			t.Errorf("undoing request %s reported conflicts: %+v", cp.RequestID, res.Conflicts)
		}
		tally.undone++
		tally.replaced += len(res.Replaced)
		want := states[firstStepOf(script, cp.RequestID)]
		got, _ := readImage(t, p.dir)
		for _, d := range diffImages(want, got) {
			t.Errorf("after undoing request %s: %s", cp.RequestID, d)
		}
	}
}

func firstStepOf(script []crashStep, request string) int {
	for i, st := range script {
		if st.request == request {
			return i
		}
	}
	return len(script)
}

// writeImage lays out a workspace, with each file's exact mode.
func writeImage(t *testing.T, root string, w wsImage) {
	t.Helper()
	for rel, f := range w {
		full := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(f.data), f.mode); err != nil {
			t.Fatal(err)
		}
		// WriteFile's mode passes through the umask.
		if err := os.Chmod(full, f.mode); err != nil {
			t.Fatal(err)
		}
	}
}

// readImage reads a workspace's regular files, setting apart the atomic
// writers' temporary files (slash paths, sorted).
func readImage(t *testing.T, root string) (wsImage, []string) {
	t.Helper()
	w := wsImage{}
	var temps []string
	err := filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, full)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if atomicTemp.MatchString(d.Name()) {
			temps = append(temps, rel)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%v)", rel, info.Mode())
		}
		data, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		w[rel] = fileImage{string(data), info.Mode().Perm()}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	sort.Strings(temps)
	return w, temps
}

// mustReadImage reads a workspace that must hold no temporary file.
func mustReadImage(t *testing.T, root string) wsImage {
	t.Helper()
	w, temps := readImage(t, root)
	if len(temps) > 0 {
		t.Errorf("temporary files left in the workspace: %v", temps)
	}
	return w
}
