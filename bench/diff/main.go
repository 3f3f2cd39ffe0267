// Command diff times diff.Unified against GNU diff -u on the same generated
// files and prints one table row per edit level.
//
// Both sides are timed the same way, as a whole process reading two files
// and writing the diff (this program re-runs itself with -u to be the Go
// side), and the runs alternate, so machine noise falls on both alike and
// the ratio is meaningful even when the absolute times are not. Each is
// reported as the median of the runs, in wall time and in CPU time (user +
// system): on a loaded machine the CPU time is the steadier of the two.
//
//	go run ./bench/diff [-lines 100000] [-runs 9] [-levels 1,10,30]
//	go run ./bench/diff -u OLD NEW   # print Unified(OLD, NEW), like diff -u
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/diff/difftest"
)

func main() {
	log.SetFlags(0)
	unified := flag.Bool("u", false, "print the unified diff of the two files named as arguments, and exit")
	lines := flag.Int("lines", 100_000, "lines in the generated file")
	runs := flag.Int("runs", 9, "timed runs per level and tool")
	levels := flag.String("levels", "1,10,30", "comma-separated percentages of lines changed")
	flag.Parse()

	if *unified {
		if flag.NArg() != 2 {
			log.Fatal("usage: -u OLD NEW")
		}
		a, errA := os.ReadFile(flag.Arg(0))
		b, errB := os.ReadFile(flag.Arg(1))
		if errA != nil || errB != nil {
			log.Fatal(errA, errB)
		}
		os.Stdout.WriteString(diff.Unified(flag.Arg(0), flag.Arg(1), a, b))
		return
	}

	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "diffbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	fmt.Printf("%d-line file, median of %d runs, whole processes timed side by side\n\n", *lines, *runs)
	fmt.Printf("%-6s | %9s %9s %6s | %9s %9s %6s | %9s %10s\n", "", "wall", "", "", "cpu", "", "", "diff size", "(lines)")
	fmt.Printf("%-6s | %9s %9s %6s | %9s %9s %6s | %9s %10s\n", "level", "ours", "diff -u", "ratio", "ours", "diff -u", "ratio", "ours", "diff -u")
	for _, f := range strings.Split(*levels, ",") {
		pct, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			log.Fatalf("bad level %q", f)
		}
		a, b := difftest.Pair(*lines, pct, 1)
		pa, pb := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
		if err := os.WriteFile(pa, a, 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(pb, b, 0o644); err != nil {
			log.Fatal(err)
		}
		ours := []string{self, "-u", pa, pb}
		gnu := []string{"diff", "-u", pa, pb}

		var wOurs, wGNU, cOurs, cGNU []time.Duration
		for range *runs {
			w, c := timeRun(ours)
			wOurs, cOurs = append(wOurs, w), append(cOurs, c)
			w, c = timeRun(gnu)
			wGNU, cGNU = append(wGNU, w), append(cGNU, c)
		}
		w1, w2, c1, c2 := measure.Median(wOurs), measure.Median(wGNU), measure.Median(cOurs), measure.Median(cGNU)
		fmt.Printf("%-6s | %9s %9s %6s | %9s %9s %6s | %9d %10d\n", f+"%",
			measure.Ms(w1), measure.Ms(w2), measure.Ratio(w1, w2), measure.Ms(c1), measure.Ms(c2), measure.Ratio(c1, c2),
			outputLines(ours), outputLines(gnu))
	}
}

// timeRun runs a command with its output discarded and returns its wall
// time and the CPU time it used.
func timeRun(argv []string) (wall, cpu time.Duration) {
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	err := cmd.Run()
	wall = time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) { // diff exits 1 on differences
		log.Fatalf("%v: %v", argv, err)
	}
	return wall, measure.ExitedCPU(cmd.ProcessState)
}

// outputLines counts the lines a command prints.
func outputLines(argv []string) int {
	out, _ := exec.Command(argv[0], argv[1:]...).Output()
	return bytes.Count(out, []byte("\n"))
}
