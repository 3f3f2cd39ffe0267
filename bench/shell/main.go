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
	"slices"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

type benchCase struct {
	name  string
	base  string // the case it is compared with; empty for a baseline
	run   func() error
	times []time.Duration
	cpu   []time.Duration
}

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
	toolCall := func(mode protocol.Mode, command string) func() error {
		args, _ := json.Marshal(map[string]string{"command": command})
		e := env(mode)
		return func() error {
			// A fresh session per call, as the repeat guard would refuse the
			// third identical call in one.
			r := reg.Invoke(context.Background(), &tool.Call{Name: "shell", Args: args, RequestID: "bench", Budget: tool.NewBudget(0, 0), Session: tool.NewSession(), Env: e})
			if r.IsError {
				return fmt.Errorf("%s: %s", command, r.Content)
			}
			return nil
		}
	}
	direct := func(command string) func() error {
		return func() error {
			cmd := exec.Command(bash, "-c", command)
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			return cmd.Run()
		}
	}
	runner := func(command string) func() error {
		return func() error {
			o, err := shell.Run(context.Background(), shell.Spec{Command: command, Dir: dir, Shell: bash}, shell.NewCapture(64<<10))
			if err == nil && o.ExitCode != 0 {
				err = fmt.Errorf("%s: exit code %d", command, o.ExitCode)
			}
			return err
		}
	}
	cases := []*benchCase{
		{name: "bash -c true, direct", run: direct("true")},
		{name: "shell.Run(true)", base: "bash -c true, direct", run: runner("true")},
		{name: "shell tool: true (bypass mode)", base: "bash -c true, direct", run: toolCall(protocol.ModeBypass, "true")},
		{name: "shell tool: echo hi (allow-listed)", base: "bash -c true, direct", run: toolCall(protocol.ModeDefault, "echo hi")},
		{name: "git status, direct", run: direct("git status")},
		{name: "shell tool: git status (allow-listed)", base: "git status, direct", run: toolCall(protocol.ModeDefault, "git status")},
	}
	// Warm up: the page cache, git's index, the first fork of a big process.
	for _, c := range cases {
		for i := 0; i < 5; i++ {
			if err := c.run(); err != nil {
				log.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	for r := 0; r < *rounds; r++ {
		for i := range cases {
			c := cases[(i+r)%len(cases)]
			start, startCPU := time.Now(), measure.CPU()
			if err := c.run(); err != nil {
				log.Fatalf("%s: %v", c.name, err)
			}
			c.times = append(c.times, time.Since(start))
			c.cpu = append(c.cpu, measure.CPU()-startCPU)
		}
	}
	report(cases, *rounds)
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

func report(cases []*benchCase, rounds int) {
	medians := map[string][2]time.Duration{}
	fmt.Printf("shell tool overhead, %d rounds, cases interleaved; per run: wall time (median, 90th percentile) and CPU time of this process and its children (median)\n\n", rounds)
	fmt.Printf("%-40s %10s %10s %8s %10s %8s\n", "case", "wall", "wall p90", "ratio", "cpu", "ratio")
	for _, c := range cases {
		slices.Sort(c.times)
		slices.Sort(c.cpu)
		m := [2]time.Duration{c.times[len(c.times)/2], c.cpu[len(c.cpu)/2]}
		p90 := c.times[len(c.times)*9/10]
		medians[c.name] = m
		wallRatio, cpuRatio := "", ""
		if b, ok := medians[c.base]; ok {
			wallRatio = fmt.Sprintf("%.2fx", float64(m[0])/float64(b[0]))
			cpuRatio = fmt.Sprintf("%.2fx", float64(m[1])/float64(b[1]))
		}
		fmt.Printf("%-40s %10s %10s %8s %10s %8s\n", c.name, round(m[0]), round(p90), wallRatio, round(m[1]), cpuRatio)
	}
	fmt.Printf("\nratio: the case's median over its direct counterpart's (target: under 1.2x). CPU time has a 1 ms tick on some kernels; with many rounds its median is still telling.\n")
}

func round(d time.Duration) string {
	return d.Round(time.Microsecond).String()
}
