// Command capture-bench measures what taking a command's changes in costs:
// 1,000 new files taken in from an overlay's upper layer (read, classify,
// checkpoint, apply, record) beside the floor of moving them in at all (a
// rename each, one flush of the file system, each folder synced), and the
// undo checkpoint of a command that changed 10 files of the Go source
// tree beside a shadow-git snapshot of that tree. The workloads take turns
// round after round; it prints a table, and asserts nothing. Run it with
// run.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/undo"
)

func main() {
	rounds := flag.Int("rounds", 9, "rounds; the median and the 90th percentile are reported")
	files := flag.Int("files", 1000, "new files a command leaves in the first workload")
	flag.Parse()
	if err := run(*rounds, *files); err != nil {
		fmt.Fprintln(os.Stderr, "capture-bench:", err)
		os.Exit(1)
	}
}

func run(rounds, nfiles int) error {
	tmp, err := os.MkdirTemp("", "capture-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		os.Setenv(v, filepath.Join(tmp, v))
	}
	takeIn, floor, err := newFiles(tmp, nfiles)
	if err != nil {
		return err
	}
	checkpoint, shadow, err := tenOfTheGoTree(tmp)
	if err != nil {
		return err
	}
	cases := []*measure.Case{floor, takeIn, shadow, checkpoint}
	for r := range rounds {
		for i := range cases {
			c := cases[(i+r)%len(cases)]
			if err := c.Run(r); err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
		}
	}
	fmt.Printf("%d rounds, interleaved; %s\n\n", rounds, time.Now().UTC().Format("2006-01-02"))
	measure.Table(cases)
	return nil
}

// timed runs fn and appends its wall and CPU time to c.
func timed(c *measure.Case, fn func() error) error {
	t0, c0 := time.Now(), measure.ProcessCPU()
	err := fn()
	c.Wall = append(c.Wall, time.Since(t0))
	c.CPU = append(c.CPU, measure.ProcessCPU()-c0)
	return err
}

// fill writes n new files, 20 to a folder, beneath dir, as a command
// creating them would leave them in its upper layer.
func fill(dir string, n int) error {
	for i := range n {
		p := filepath.Join(dir, "gen", fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "generated file %d\n", i), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// newFiles makes the first pair of workloads: TakeIn of n new files, and
// the floor of moving n files into the folder durably.
func newFiles(tmp string, n int) (takeIn, floor *measure.Case, err error) {
	folder := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(folder, ".gitignore"), []byte("*.o\n"), 0o644); err != nil {
		return nil, nil, err
	}
	ws, err := workspace.New(folder)
	if err != nil {
		return nil, nil, err
	}
	st, err := stores.Open(ws.Primary(), stores.Options{})
	if err != nil {
		return nil, nil, err
	}
	env := &tool.Env{Workspace: ws, Settings: tool.Settings{Mode: protocol.ModeBypass, SettleTime: -1}}
	env.Attach(st)
	state := project.StateDir(ws.Primary())
	takeIn = &measure.Case{Name: fmt.Sprintf("TakeIn: %d new files", n), Base: "floor", Target: "under 100 ms"}
	takeIn.Run = func(i int) error {
		if err := os.RemoveAll(filepath.Join(folder, "gen")); err != nil {
			return err
		}
		set, err := overlay.Allocate(state, []string{ws.Primary()})
		if err != nil {
			return err
		}
		defer set.Remove()
		if err := fill(set.Layers[0].Upper, n); err != nil {
			return err
		}
		measure.Flush()
		c := &tool.Call{Name: "shell", RequestID: fmt.Sprint("bench-", i), Budget: tool.NewBudget(0, 0), Session: tool.NewSession(), Env: env}
		return timed(takeIn, func() error {
			res, err := c.TakeIn(context.Background(), set, "generate")
			if err == nil && res.IsError {
				err = fmt.Errorf("%s", res.Content)
			}
			return err
		})
	}
	floor = &measure.Case{Name: "floor"}
	floor.Name = fmt.Sprintf("floor: rename %d files in, sync", n)
	takeIn.Base = floor.Name
	scratch := filepath.Join(tmp, "scratch")
	floorWS := filepath.Join(tmp, "floor-ws")
	floor.Run = func(i int) error {
		for _, d := range []string{scratch, floorWS} {
			if err := os.RemoveAll(d); err != nil {
				return err
			}
		}
		if err := fill(scratch, n); err != nil {
			return err
		}
		measure.Flush()
		return timed(floor, func() error { return moveAll(scratch, floorWS) })
	}
	return takeIn, floor, nil
}

// moveAll moves every file of src into dst at the same place, making each
// folder, then flushes the file system once and syncs each folder: what
// making the files durable in their new place costs at the least.
func moveAll(src, dst string) error {
	var dirs []string
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			dirs = append(dirs, to)
			return os.Mkdir(to, 0o755)
		}
		return os.Rename(p, to)
	})
	if err != nil {
		return err
	}
	if err := syncFS(dst); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := fsatomic.SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// tenOfTheGoTree makes the second pair: the checkpoint of a command that
// changed 10 files of a copy of the Go source tree (every prior state
// saved in one flush, what was left recorded), and a shadow-git snapshot
// of the tree after the same change.
func tenOfTheGoTree(tmp string) (checkpoint, shadow *measure.Case, err error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	tree := filepath.Join(tmp, "src")
	nfiles, size, err := measure.CopyTree(filepath.Join(strings.TrimSpace(string(goroot)), "src"), tree)
	if err != nil {
		return nil, nil, err
	}
	fmt.Printf("Go source tree copy: %d files, %.1f MB\n", nfiles, float64(size)/1e6)
	ten, err := measure.GoFiles(tree, 10)
	if err != nil {
		return nil, nil, err
	}
	originals := make([][]byte, len(ten))
	for i, p := range ten {
		if originals[i], err = os.ReadFile(p); err != nil {
			return nil, nil, err
		}
	}
	change := func(round int) error {
		for i, p := range ten {
			if err := os.WriteFile(p, append(slices.Clip(originals[i]), fmt.Sprintf("\n// round %d\n", round)...), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	store, err := undo.Open(tree, undo.Options{Dir: filepath.Join(tmp, "undo-src")})
	if err != nil {
		return nil, nil, err
	}
	checkpoint = &measure.Case{Name: "checkpoint: 10 files of the tree", Target: "at least 100× cheaper"}
	checkpoint.Run = func(i int) error {
		req := fmt.Sprint("ten-", i)
		measure.Flush()
		if err := timed(checkpoint, func() error { return store.SaveSet(req, ten, "a command's changes") }); err != nil {
			return err
		}
		if err := change(i); err != nil {
			return err
		}
		last := len(checkpoint.Wall) - 1
		t0, c0 := time.Now(), measure.ProcessCPU()
		err := store.WroteSet(req, ten)
		if err == nil {
			err = store.Applied(req)
		}
		checkpoint.Wall[last] += time.Since(t0)
		checkpoint.CPU[last] += measure.ProcessCPU() - c0
		return err
	}
	gitDir := filepath.Join(tmp, "shadow.git")
	git := func(args ...string) error {
		cmd := measure.ShadowGit(gitDir, tree, tmp, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		if err := git(args...); err != nil {
			return nil, nil, err
		}
	}
	shadow = &measure.Case{Name: "shadow git: add -A, commit"}
	checkpoint.Base = shadow.Name
	shadow.Run = func(i int) error {
		if err := change(1000 + i); err != nil {
			return err
		}
		measure.Flush()
		var cpu time.Duration
		err := timed(shadow, func() error {
			for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", fmt.Sprint("round ", i)}} {
				cmd := measure.ShadowGit(gitDir, tree, tmp, args...)
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("git: %v: %s", err, out)
				}
				cpu += measure.ExitedCPU(cmd.ProcessState)
			}
			return nil
		})
		shadow.CPU[len(shadow.CPU)-1] += cpu
		return err
	}
	return checkpoint, shadow, nil
}
