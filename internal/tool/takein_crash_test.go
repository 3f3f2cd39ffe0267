package tool

// TestTakeInCrash kills a process with SIGKILL at random moments while it
// takes a command's change set in, then checks, as the next start would
// find it: every path holds its old state or its new one, the checkpoint
// says the set was interrupted when it was, and undo puts back exactly
// what was there before.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/overlay/overlaytest"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

const takeInHelperEnv = "TETHER_TAKEIN_CRASH_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(takeInHelperEnv); spec != "" {
		os.Exit(takeInHelper(spec))
	}
	os.Exit(m.Run())
}

// helperSpec is what the helper process is given: the workspace folder,
// the set to take in, and the XDG folders of the test.
type helperSpec struct {
	Folder string
	Set    overlay.Set
	State  string
}

// takeInHelper takes the set in, in bypass mode, saying "go" on stdout
// just before it starts, "saved" once the checkpoint holds every prior
// state, and at the end how long applying took after that.
func takeInHelper(spec string) int {
	var hs helperSpec
	if err := json.Unmarshal([]byte(spec), &hs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ws, err := workspace.New(hs.Folder)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	st, err := stores.Open(ws.Primary(), stores.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	env := &Env{Workspace: ws, Settings: Settings{Mode: protocol.ModeBypass, SettleTime: -1}}
	env.Attach(st)
	c := &Call{Name: "shell", RequestID: "crash", Budget: NewBudget(0, 0), Session: NewSession(), Env: env}
	var saved time.Time
	afterSaveHook = func() {
		saved = time.Now()
		fmt.Println("saved")
	}
	fmt.Println("go")
	res, err := c.TakeIn(context.Background(), &hs.Set, crashScript)
	if err != nil || res.IsError {
		fmt.Fprintln(os.Stderr, err, res.Content)
		return 1
	}
	fmt.Println(time.Since(saved).Nanoseconds())
	return 0
}

// crashScript changes files of every kind, many of them, so that the set
// takes long enough to be killed inside.
const crashScript = `set -e
for i in $(seq 1 150); do echo "new $i" > "n$i.txt"; done
mkdir -p gen/deep && for i in $(seq 1 50); do echo "g $i" > "gen/deep/g$i"; done
for i in $(seq 1 40); do echo "changed" >> "old$i.txt"; done
rm -r gone
chmod +x run.sh
ln -sfn n1.txt link
mv old40.txt moved.txt`

func crashTree() map[string]string {
	tree := map[string]string{"run.sh": "echo hi\n", "link": "->run.sh", "gone/a": "a\n", "gone/b/c": "c\n"}
	for i := 1; i <= 40; i++ {
		tree[fmt.Sprintf("old%d.txt", i)] = strings.Repeat(fmt.Sprintf("line of old %d\n", i), 200)
	}
	return tree
}

var tempFile = regexp.MustCompile(`\.tether-[0-9]+-`)

func TestTakeInCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills helper processes")
	}
	if why := overlaytest.Available(); why != "" {
		t.Skip(why)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	control := crashRun(t, -1, false)
	t.Logf("the control run took %v to apply the set once saved", control)
	var interrupted, before, complete int
	for i := range 24 {
		// Most kills aim at the apply, some at what comes before the save.
		delay := time.Duration(rng.Float64() * 1.3 * float64(control))
		switch crashRun(t, delay, i%4 != 0) {
		case -2:
			interrupted++
		case -3:
			before++
		default:
			complete++
		}
		_ = i
	}
	t.Logf("kills: %d before anything was saved, %d while applying, %d after the set was applied", before, interrupted, complete)
}

// crashRun prepares a workspace and a set, takes it in in a helper killed
// after delay (never, when negative) from its start or, with afterSave,
// from the moment the checkpoint holds every prior state, and checks what
// it left. It returns
// the control's time, or where the kill landed: -2 interrupted, -3 before
// anything was saved, else 0.
func crashRun(t *testing.T, delay time.Duration, afterSave bool) time.Duration {
	t.Helper()
	home := t.TempDir()
	env := []string{}
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
		env = append(env, v+"="+filepath.Join(home, v))
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	folder := filepath.Join(base, "ws")
	writeTree(t, folder, crashTree())
	before := overlaytest.Tree(t, folder)
	want := (&captureFixture{t: t}).expected([]map[string]string{crashTree()}, crashScript)[0]
	set, err := overlay.Allocate(project.StateDir(folder), []string{folder})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Remove()
	overlaytest.Run(t, set, crashScript)
	spec, _ := json.Marshal(helperSpec{Folder: folder, Set: *set})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), takeInHelperEnv+"="+string(spec))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "go" {
		cmd.Wait()
		t.Fatalf("the helper did not start: %s", stderr.String())
	}
	if delay >= 0 {
		if afterSave {
			lines.Scan() // "saved"
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
	}
	var took time.Duration
	for lines.Scan() {
		fmt.Sscan(lines.Text(), &took)
	}
	werr := cmd.Wait()
	if delay < 0 && werr != nil {
		t.Fatalf("the control run failed: %v\n%s", werr, stderr.String())
	}

	// Every path holds its old state or its new one; a temporary file of
	// the killed write may lie beside one until the next start sweeps it.
	got := overlaytest.Tree(t, folder)
	for p, g := range got {
		if tempFile.MatchString(filepath.Base(p)) {
			continue
		}
		if g != before[p] && g != want[p] {
			t.Errorf("%s is neither old nor new: %s (old %q, new %q)", p, g, before[p], want[p])
		}
	}
	// The next start: stores open, temporary files go, the checkpoint
	// tells what happened, and undo puts back what was there.
	st, err := stores.Open(folder, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for p := range overlaytest.Tree(t, folder) {
		if tempFile.MatchString(filepath.Base(p)) {
			t.Errorf("a temporary file stayed after the next start: %s", p)
		}
	}
	cps, err := st.Undo.List()
	if err != nil {
		t.Fatal(err)
	}
	landed := time.Duration(0)
	switch {
	case len(cps) == 0:
		landed = -3
		for _, d := range overlaytest.DiffTrees(before, overlaytest.Tree(t, folder)) {
			t.Errorf("killed before the checkpoint, yet: %s", d)
		}
		return landed
	case cps[0].Interrupted != "":
		landed = -2
		if werr == nil {
			t.Errorf("the set was applied to the end but is reported as interrupted")
		}
	case werr != nil:
		// Killed after the last record: the set is whole.
		for _, d := range overlaytest.DiffTrees(want, overlaytest.Tree(t, folder)) {
			t.Errorf("not interrupted, yet: %s", d)
		}
	}
	if _, err := st.Undo.Undo(""); err != nil {
		t.Fatal(err)
	}
	for _, d := range overlaytest.DiffTrees(before, overlaytest.Tree(t, folder)) {
		t.Errorf("after undo: %s", d)
	}
	if delay < 0 {
		return took
	}
	return landed
}
