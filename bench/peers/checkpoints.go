package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/undo"
)

// checkpoints times an undo checkpoint of one changed file (Save before
// the change, Wrote after it, durably) against a warm shadow-git snapshot
// of the whole tree (add -A, commit), interleaved round by round, counts
// the fsyncs a checkpoint makes, and times the undo of a 100-file request.
func (b *bench) checkpoints() error {
	fmt.Fprintln(os.Stderr, "checkpoints")
	store, err := undo.Open(b.tree, undo.Options{Dir: filepath.Join(b.tmp, "undo")})
	if err != nil {
		return err
	}
	defer store.Close()
	target := filepath.Join(b.tree, "fmt", "print.go")
	original, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	round := 0
	change := func() error {
		round++
		return fsatomic.WriteFile(target, append(slices.Clip(original), fmt.Sprintf("\n// change %d\n", round)...), 0o644)
	}

	gitDir := filepath.Join(b.tmp, "shadow.git")
	git := func(args ...string) error {
		if out, err := measure.ShadowGit(gitDir, b.tree, b.tmp, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := git("init", "-q"); err != nil {
		return err
	}
	if err := git("add", "-A"); err != nil { // the first snapshot, untimed
		return err
	}
	if err := git("commit", "-q", "-m", "first"); err != nil {
		return err
	}

	tc, gc, err := interleave(b.o.rounds, func(i int) (time.Duration, error) {
		req := fmt.Sprintf("one-file-%d", i)
		measure.Flush()
		t0 := time.Now()
		if err := store.Save(req, target); err != nil {
			return 0, err
		}
		d := time.Since(t0)
		if err := change(); err != nil {
			return 0, err
		}
		t1 := time.Now()
		err := store.Wrote(req, target)
		return d + time.Since(t1), err
	}, func(i int) (time.Duration, error) {
		if err := change(); err != nil {
			return 0, err
		}
		measure.Flush()
		t0 := time.Now()
		if err := git("add", "-A"); err != nil {
			return 0, err
		}
		err := git("commit", "-q", "-m", "round "+strconv.Itoa(i))
		return time.Since(t0), err
	})
	if err != nil {
		return err
	}
	syncs := b.countSyncs()
	b.add(row{"undo checkpoint of one changed file vs a shadow git snapshot, median", measure.Ms(measure.Median(tc)), measure.Ms(measure.Median(gc)) + " (git)",
		fmt.Sprintf("%.4f× (%.0f× cheaper)", ratio(tc, gc), 1/ratio(tc, gc)), "≤ 0.01× (100× cheaper)", met(ratio(tc, gc) <= 0.01)})
	b.notes = append(b.notes, "fsyncs per undo checkpoint of one changed file: "+syncs)

	// Undo of a request that edited 100 files of the tree.
	hundred, err := measure.GoFiles(b.tree, 100)
	if err != nil {
		return err
	}
	var undos []time.Duration
	for i := range max(b.o.rounds/3, 3) {
		req := fmt.Sprintf("hundred-%d", i)
		for _, p := range hundred {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := store.Save(req, p); err != nil {
				return err
			}
			if err := fsatomic.WriteFile(p, append(data, "\n// edited\n"...), 0o644); err != nil {
				return err
			}
			if err := store.Wrote(req, p); err != nil {
				return err
			}
		}
		t0 := time.Now()
		rep, err := store.Undo("")
		if err != nil {
			return err
		}
		undos = append(undos, time.Since(t0))
		if len(rep.Restored) != len(hundred) || len(rep.Conflicts) > 0 {
			return fmt.Errorf("undo restored %d of %d files, conflicts %v", len(rep.Restored), len(hundred), rep.Conflicts)
		}
	}
	u := measure.Median(undos)
	b.add(row{"undo of a 100-file request, median", measure.Ms(u), "", "", "< 100 ms", met(u < 100*time.Millisecond)})
	return nil
}

// countSyncs counts, with strace when it is installed, the fsync and
// fdatasync calls of checkpoints made by a worker process, less those of a
// worker that makes none.
func (b *bench) countSyncs() string {
	strace, err := exec.LookPath("strace")
	if err != nil {
		return "not counted (strace is not installed)"
	}
	self, err := os.Executable()
	if err != nil {
		return "not counted: " + err.Error()
	}
	const n = 20
	count := func(rounds int) (int, error) {
		dir, err := os.MkdirTemp(b.tmp, "syncs-")
		if err != nil {
			return 0, err
		}
		out := filepath.Join(dir, "strace.txt")
		cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", out, self, "-checkpoint-worker", dir, "-worker-rounds", strconv.Itoa(rounds))
		if msg, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("%v: %s", err, msg)
		}
		f, err := os.Open(out)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		calls := 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if l := sc.Text(); strings.Contains(l, "fsync(") || strings.Contains(l, "fdatasync(") {
				calls++
			}
		}
		return calls, sc.Err()
	}
	base, err := count(0)
	if err != nil {
		return "not counted: " + err.Error()
	}
	all, err := count(n)
	if err != nil {
		return "not counted: " + err.Error()
	}
	return fmt.Sprintf("%.1f (strace, %d checkpoints; the change itself is written without a sync here)", float64(all-base)/n, n)
}

// checkpointWorker makes rounds checkpoints of one changed file in dir,
// changing the file without syncing it, so that every fsync counted is
// the checkpoint's.
func checkpointWorker(dir string, rounds int) error {
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	target := filepath.Join(ws, "file.go")
	content := strings.Repeat("x := 1 // a line of code\n", 1000)
	if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
		return err
	}
	store, err := undo.Open(ws, undo.Options{Dir: filepath.Join(dir, "undo")})
	if err != nil {
		return err
	}
	defer store.Close()
	for i := range rounds {
		req := fmt.Sprintf("r%d", i)
		if err := store.Save(req, target); err != nil {
			return err
		}
		if err := os.WriteFile(target, []byte(content+fmt.Sprintf("// change %d\n", i)), 0o644); err != nil {
			return err
		}
		if err := store.Wrote(req, target); err != nil {
			return err
		}
	}
	return nil
}
