// Command undo-bench measures what Tether's undo checkpoints cost against a
// shadow git repository (the way several agents snapshot a workspace), on a
// copy of the Go source tree. It prints a table; run it with run.sh.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/undo"
)

func main() {
	rounds := flag.Int("rounds", 9, "repetitions of each measurement; the median and the best are reported")
	keep := flag.Bool("keep", false, "keep the temporary folder")
	flag.Parse()
	if err := run(*rounds, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "undo-bench:", err)
		os.Exit(1)
	}
}

func run(rounds int, keep bool) error {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	tmp, err := os.MkdirTemp("", "undo-bench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("temporary folder:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	tree := filepath.Join(tmp, "src")
	files, bytes, err := measure.CopyTree(src, tree)
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	fmt.Printf("workspace: a copy of $(go env GOROOT)/src, %d files, %.1f MB; %d rounds, median\n\n", files, float64(bytes)/1e6, rounds)

	target := filepath.Join(tree, "fmt", "print.go")
	original, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	change := func(i int) []byte { return append(slices.Clip(original), fmt.Sprintf("\n// change %d\n", i)...) }

	// Tether: Save before the change, Wrote after it, each round a new request.
	store, err := undo.Open(tree, undo.Options{Dir: filepath.Join(tmp, "state", "undo")})
	if err != nil {
		return err
	}
	defer store.Close()
	var tetherTimes, tetherCPU []time.Duration
	for i := range rounds {
		req := fmt.Sprintf("one-file-%d", i)
		t0, c0 := time.Now(), measure.ProcessCPU()
		if err := store.Save(req, target); err != nil {
			return err
		}
		d, c := time.Since(t0), measure.ProcessCPU()-c0
		if err := fsatomic.WriteFile(target, change(i), 0o644); err != nil {
			return err
		}
		t1, c1 := time.Now(), measure.ProcessCPU()
		if err := store.Wrote(req, target); err != nil {
			return err
		}
		tetherTimes = append(tetherTimes, d+time.Since(t1))
		tetherCPU = append(tetherCPU, c+measure.ProcessCPU()-c1)
	}

	// Shadow git: a repository beside the tree, snapshotting all of it.
	gitDir := filepath.Join(tmp, "shadow.git")
	var gitCPUNow time.Duration // CPU time of the git processes run so far
	g := func(args ...string) error {
		cmd := measure.ShadowGit(gitDir, tree, tmp, args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		gitCPUNow += measure.ExitedCPU(cmd.ProcessState)
		return nil
	}
	if err := g("init", "-q"); err != nil {
		return err
	}
	t0 := time.Now()
	if err := g("add", "-A"); err != nil {
		return err
	}
	if err := g("commit", "-q", "-m", "first"); err != nil {
		return err
	}
	gitFirst := time.Since(t0)
	var gitTimes, gitCPU []time.Duration
	for i := range rounds {
		if err := fsatomic.WriteFile(target, change(1000+i), 0o644); err != nil {
			return err
		}
		t0, c0 := time.Now(), gitCPUNow
		if err := g("add", "-A"); err != nil {
			return err
		}
		if err := g("commit", "-q", "-m", fmt.Sprint("round ", i)); err != nil {
			return err
		}
		gitTimes = append(gitTimes, time.Since(t0))
		gitCPU = append(gitCPU, gitCPUNow-c0)
	}

	// Undo of a request that edited 100 files of the tree.
	hundred, err := measure.GoFiles(tree, 100)
	if err != nil {
		return err
	}
	var undoTimes, undoCPU []time.Duration
	for i := range rounds {
		req := fmt.Sprintf("hundred-%d", i)
		for _, p := range hundred {
			if err := store.Save(req, p); err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := fsatomic.WriteFile(p, append(data, "\n// edited\n"...), 0o644); err != nil {
				return err
			}
			if err := store.Wrote(req, p); err != nil {
				return err
			}
		}
		t0, c0 := time.Now(), measure.ProcessCPU()
		rep, err := store.Undo("")
		if err != nil {
			return err
		}
		undoTimes = append(undoTimes, time.Since(t0))
		undoCPU = append(undoCPU, measure.ProcessCPU()-c0)
		if len(rep.Restored) != len(hundred) || len(rep.Conflicts) > 0 {
			return fmt.Errorf("undo restored %d of %d files, conflicts %v", len(rep.Restored), len(hundred), rep.Conflicts)
		}
	}

	storeSize, err := duBytes(store.Dir())
	if err != nil {
		return err
	}
	gitSize, err := duBytes(gitDir)
	if err != nil {
		return err
	}
	row := func(name string, wall, cpu []time.Duration) {
		fmt.Printf("| %s | %s | %s | %s |\n", name, measure.Ms(measure.Median(wall)), measure.Ms(slices.Min(wall)), measure.Ms(measure.Median(cpu)))
	}
	ratio := func(a, b []time.Duration) string {
		return fmt.Sprintf("%.0fx", float64(measure.Median(a))/float64(measure.Median(b)))
	}
	fmt.Printf("| measurement | median wall | best wall | median CPU |\n| --- | --- | --- | --- |\n")
	row("Tether checkpoint of one changed file (Save + Wrote, synced)", tetherTimes, tetherCPU)
	row("shadow git, warm snapshot after the same change (add -A + commit)", gitTimes, gitCPU)
	fmt.Printf("| Tether cheaper by (target 100x) | %s | %.0fx | %s |\n", ratio(gitTimes, tetherTimes),
		float64(slices.Min(gitTimes))/float64(slices.Min(tetherTimes)), ratio(gitCPU, tetherCPU))
	row("Tether undo of a 100-file request (target under 100 ms)", undoTimes, undoCPU)
	fmt.Printf("| shadow git, first snapshot of the tree (once) | %s | | |\n", measure.Ms(gitFirst))
	fmt.Printf("| on disk: Tether store after all of the above | %.2f MB | | |\n", float64(storeSize)/1e6)
	fmt.Printf("| on disk: shadow git repository | %.2f MB | | |\n", float64(gitSize)/1e6)
	return nil
}

func duBytes(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			total += fi.Size()
		}
		return err
	})
	return total, err
}
