// Command shell measures what the shell tool adds to running a command and
// prints a table.
//
// The baseline is `bash -c true` started directly with os/exec, output
// collected, as any caller would. Against it: the runner alone
// (shell.Run: own session and process group, marker, head-and-tail
// capture, the check for processes left behind), and the shell tool
// called through the registry as the daemon calls it (argument
// validation, parsing the command line for its programs, the allow-list,
// the permission decision, the runner and the formatting of the result),
// once with a command that goes through the permission mode (`true`, in
// bypass mode) and once with an allow-listed one (`echo hi`). A `git
// status` pair shows a command that does real work.
//
// The sandbox's cost is measured the same way: the runner with `true` at
// each level this machine passes (the full sandbox, Landlock only) beside
// the unconfined runner, the overhead printed in milliseconds (target: at
// most 5 ms); and with -builds N, N rounds of real work in this
// repository, confined and not: `go build ./...`, `go test ./internal/...`
// and `npm ci --offline` from a warm npm cache (target: at most 1.1x).
//
// The cases run in turn, round after round, so machine noise falls on all
// of them alike; each figure is the median (and the 90th percentile) of
// the rounds. Nothing is asserted: the target is under 1.2x.
//
//	go run ./bench/shell [-rounds 400] [-builds 3]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

func main() {
	log.SetFlags(0)
	rounds := flag.Int("rounds", 400, "timed rounds (each runs every case once)")
	builds := flag.Int("builds", 0, "rounds of the build cases in this repository (go build, go test ./internal/..., npm ci --offline), confined and not; 0 skips them")
	flag.Parse()

	dir, err := os.MkdirTemp("", "shellbench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := setupRepo(dir); err != nil {
		log.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		log.Fatal(err)
	}
	bash, err := shell.FindShell()
	if err != nil {
		log.Fatal(err)
	}
	reg := tools.Builtin()
	// The tool's own cost, unconfined; the sandbox's is measured below.
	env := func(mode protocol.Mode) *tool.Env {
		return &tool.Env{Workspace: ws, Settings: tool.Settings{Mode: mode, Sandbox: tool.SandboxSettings{Mode: sandbox.SettingOff}}}
	}
	toolCall := func(mode protocol.Mode, command string) func(int) error {
		args, _ := json.Marshal(map[string]string{"command": command})
		e := env(mode)
		return func(int) error {
			// A fresh session per call, as the repeat guard would refuse the
			// third identical call in one.
			r := reg.Invoke(context.Background(), &tool.Call{Name: "shell", Args: args, RequestID: "bench", Budget: tool.NewBudget(0, 0), Session: tool.NewSession(), Env: e})
			if r.IsError {
				return fmt.Errorf("%s: %s", command, r.Content)
			}
			return nil
		}
	}
	direct := func(command string) func(int) error {
		return func(int) error {
			cmd := exec.Command(bash, "-c", command)
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			return cmd.Run()
		}
	}
	runner := func(command string) func(int) error {
		return func(int) error {
			o, err := shell.Run(context.Background(), shell.Spec{Command: command, Dir: dir, Shell: bash}, shell.NewCapture(64<<10))
			if err == nil && o.ExitCode != 0 {
				err = fmt.Errorf("%s: exit code %d", command, o.ExitCode)
			}
			return err
		}
	}
	cases := []*measure.Case{
		{Name: "bash -c true, direct", Run: direct("true")},
		{Name: "shell.Run(true)", Base: "bash -c true, direct", Run: runner("true")},
		{Name: "shell tool: true (bypass mode)", Base: "bash -c true, direct", Run: toolCall(protocol.ModeBypass, "true")},
		{Name: "shell tool: echo hi (allow-listed)", Base: "bash -c true, direct", Run: toolCall(protocol.ModeDefault, "echo hi")},
		{Name: "git status, direct", Run: direct("git status")},
		{Name: "shell tool: git status (allow-listed)", Base: "git status, direct", Run: toolCall(protocol.ModeDefault, "git status")},
	}
	// Five warm-up runs: the page cache, git's index, the first fork of a big process.
	if err := measure.Rotate(cases, 5, *rounds); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("shell tool overhead, %d rounds, cases interleaved; per run: wall time (median, 90th percentile) and CPU time of this process and its children (median)\n\n", *rounds)
	measure.Table(cases)
	fmt.Printf("\nratio: the case's median over its direct counterpart's (target: under 1.2×). CPU time has a 1 ms tick on some kernels; with many rounds its median is still telling.\n")

	if err := sandboxCases(dir, bash, *rounds, *builds); err != nil {
		log.Fatal(err)
	}
	if err := captureCases(*rounds); err != nil {
		log.Fatal(err)
	}
}

// captureCases measures the shell tool at the full level with a command's
// writes captured (an overlay of its own, read and taken in when it ends,
// with the undo checkpoint) beside the same tool writing the workspace
// directly, as before capture: `true`, and a command that writes one
// file, in bypass mode (nothing asks), through a job manager as in the
// daemon.
func captureCases(rounds int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	st := sandbox.Probe(ctx, "")
	cancel()
	if st.Level != sandbox.LevelFull {
		fmt.Printf("\ncapture: not measured, this machine has no full sandbox (%s)\n", st.Why)
		return nil
	}
	tmp, err := os.MkdirTemp("", "shellbench-capture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		os.Setenv(v, filepath.Join(tmp, v))
	}
	folder := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	ws, err := workspace.New(folder)
	if err != nil {
		return err
	}
	defer ws.Close()
	st2, err := stores.Open(ws.Primary(), stores.Options{Jobs: true})
	if err != nil {
		return err
	}
	defer st2.Close()
	reg := tools.Builtin()
	call := func(capture bool, command string) func(int) error {
		e := tool.NewEnv(tool.EnvConfig{Workspace: ws, Stores: st2, Settings: tool.Settings{Mode: protocol.ModeBypass, SettleTime: -1}})
		if !capture {
			e.Layers = ""
		}
		return func(i int) error {
			args, _ := json.Marshal(map[string]string{"command": strings.ReplaceAll(command, "N", fmt.Sprint(i))})
			r := reg.Invoke(context.Background(), &tool.Call{Name: "shell", Args: args, RequestID: fmt.Sprint("bench-", capture, i), Budget: tool.NewBudget(0, 0), Session: tool.NewSession(), Env: e})
			if r.IsError {
				return fmt.Errorf("%s: %s", command, r.Content)
			}
			return nil
		}
	}
	ready := func() {
		if st2.Jobs != nil {
			st2.Jobs.WaitAhead()
		}
	}
	cases := []*measure.Case{
		{Name: "tool, full level, true, not captured", Run: call(false, "true"), Ready: ready},
		{Name: "tool, full level, true, captured", Base: "tool, full level, true, not captured", Run: call(true, "true"), Ready: ready},
		{Name: "tool, full level, one file written, not captured", Run: call(false, "echo N > out.txt"), Ready: ready},
		{Name: "tool, full level, one file written, captured", Base: "tool, full level, one file written, not captured", Run: call(true, "echo N > out.txt"), Ready: ready},
	}
	if err := measure.Rotate(cases, 5, min(rounds, 100)); err != nil {
		return err
	}
	fmt.Printf("\nwhat capture adds to a command at the full level (bypass mode, through a job manager), %d rounds, cases interleaved; captured: its own overlay, read when it ends, the written file saved in the undo checkpoint and renamed in\n\n", min(rounds, 100))
	measure.Table(cases)
	return nil
}

// sandboxCases measures a command confined beside the same command
// unconfined: `true` for the overhead a command pays, and with builds
// rounds real work in this repository.
func sandboxCases(dir, bash string, rounds, builds int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	st := sandbox.Probe(ctx, "")
	cancel()
	levels := []sandbox.Level{}
	switch {
	case st.Level == sandbox.LevelFull:
		levels = append(levels, sandbox.LevelFull, sandbox.LevelLandlock)
	case st.Level != sandbox.LevelNone:
		levels = append(levels, st.Level)
	}
	fmt.Printf("\nsandbox: this machine passes %s (%s); Landlock ABI %d\n\n", st.Level, or(st.Why, "no fallback"), st.LandlockABI)
	if len(levels) == 0 {
		return nil
	}
	spec := func(level sandbox.Level, folder string) (*sandbox.Spec, error) {
		s, err := sandbox.Build(sandbox.Options{Level: level, Folders: []sandbox.Folder{{Path: folder}}}, sandbox.DefaultLayout())
		return &s, err
	}
	// A job manager (the daemon's) keeps a sandbox started ahead of the
	// next command of each kind; shell.Run alone (tether call) starts one
	// per command.
	jobsDir, err := os.MkdirTemp("", "shellbench-jobs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(jobsDir)
	jobs, err := shell.OpenJobsIn(jobsDir)
	if err != nil {
		return err
	}
	defer jobs.Close()
	runIn := func(m *shell.Jobs, folder, command string, box *sandbox.Spec, env ...string) func(int) error {
		return func(int) error {
			out := shell.NewCapture(64 << 10)
			spec := shell.Spec{Command: command, Dir: folder, Shell: bash, Sandbox: box, Env: env}
			var o shell.Outcome
			var err error
			if m != nil {
				o, err = m.Run(context.Background(), spec, out)
			} else {
				o, err = shell.Run(context.Background(), spec, out)
			}
			if err == nil && o.ExitCode != 0 {
				err = fmt.Errorf("%s: exit code %d: %s", command, o.ExitCode, out.String())
			}
			return err
		}
	}
	run := func(folder, command string, box *sandbox.Spec, env ...string) func(int) error {
		return runIn(nil, folder, command, box, env...)
	}
	cases := []*measure.Case{{Name: "shell.Run(true), unconfined", Run: run(dir, "true", nil)}}
	for _, l := range levels {
		s, err := spec(l, dir)
		if err != nil {
			return err
		}
		cases = append(cases,
			&measure.Case{Name: "shell.Run(true), " + string(l), Base: cases[0].Name, Target: "at most 5 ms more", Run: run(dir, "true", s)},
			&measure.Case{Name: "Jobs.Run(true), " + string(l) + ", ahead", Base: cases[0].Name, Target: "at most 5 ms more", Run: runIn(jobs, dir, "true", s), Ready: jobs.WaitAhead})
	}
	if err := measure.Rotate(cases, 5, rounds); err != nil {
		return err
	}
	fmt.Printf("a command in the sandbox, %d rounds, cases interleaved; \"ahead\": through a job manager, which keeps a sandbox started ahead of the next command (each timed once the one started after the last command is ready: what a command waits for when the machine has a core to spare)\n\n", rounds)
	measure.Table(cases)
	base := measure.Median(cases[0].Wall)
	for _, c := range cases[1:] {
		fmt.Printf("%s: %.2f ms more than unconfined (median)\n", c.Name, float64(measure.Median(c.Wall)-base)/float64(time.Millisecond))
	}
	if builds == 0 {
		return nil
	}
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	// The module and npm caches are warm; nothing may reach the network,
	// confined or not, so both do the same work.
	offline := []string{"GOFLAGS=-mod=readonly", "GOPROXY=off", "npm_config_offline=true"}
	work := []struct{ name, command string }{
		{"go build ./...", "go build ./..."},
		{"go test ./internal/...", "go test -count=1 ./internal/... >/dev/null 2>&1; true"},
		{"npm ci --offline", "npm ci --offline --no-audit --no-fund --loglevel=error"},
	}
	full, err := spec(levels[0], repo)
	if err != nil {
		return err
	}
	var heavy []*measure.Case
	for _, w := range work {
		plain := &measure.Case{Name: w.name + ", unconfined", Run: run(repo, w.command, nil, offline...)}
		boxed := &measure.Case{Name: w.name + ", " + string(levels[0]), Base: plain.Name, Target: "at most 1.1x", Run: run(repo, w.command, full, offline...)}
		heavy = append(heavy, plain, boxed)
	}
	if err := measure.Rotate(heavy, 1, builds); err != nil {
		return err
	}
	fmt.Printf("\nreal work in this repository (%s), %d rounds after one warm-up each, cases interleaved; go test's own failures inside the sandbox are not counted as errors (its tests of the sandbox cannot nest one)\n\n", repo, builds)
	measure.Table(heavy)
	return nil
}

// repoRoot is the repository the benchmark runs in (bench/lib.sh starts it
// there).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("run from the repository's root (bench/shell/run.sh does): %v", err)
	}
	return filepath.EvalSymlinks(dir)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// setupRepo makes a small git repository for the git status case.
func setupRepo(dir string) error {
	for i := 0; i < 50; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), []byte("line\n"), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "."},
		{"add", "."},
		{"-c", "user.email=bench@example.com", "-c", "user.name=bench", "commit", "-qm", "bench"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return nil
}
