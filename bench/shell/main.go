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
// The cases run in turn, round after round, so machine noise falls on all
// of them alike; each figure is the median (and the 90th percentile) of
// the rounds. Nothing is asserted: the target is under 1.2x.
//
//	go run ./bench/shell [-rounds 400]
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

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

func main() {
	log.SetFlags(0)
	rounds := flag.Int("rounds", 400, "timed rounds (each runs every case once)")
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
	env := func(mode protocol.Mode) *tool.Env {
		return &tool.Env{Workspace: ws, Settings: tool.Settings{Mode: mode}}
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
