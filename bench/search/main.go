// Command search measures the search tools on a large real tree (by
// default the Go source tree, $(go env GOROOT)/src) and prints a table.
//
// The grep tool, called through the registry as the daemon calls it, is
// timed against ripgrep run directly on the same tree with the same
// pattern, twice: with --json (what an integration parsing ripgrep's
// structured output would run) and with exactly the flags the tool passes.
// The runs alternate, so machine noise falls on every side alike, and each
// figure is the median of the runs, in wall time and in CPU time (this
// process and its children, user + system; on a loaded machine the steadier
// of the two). The moderate pattern must give fewer lines than max_matches,
// so that every side searches the whole tree.
//
// Broad searches (pattern "func" and "e", max_matches 100) show that the
// tool stops ripgrep early: their time does not grow with the tree.
//
//	go run ./bench/search [-corpus DIR] [-runs 11] [-pattern 'sync\.Mutex']
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// bigBudget lets a whole-tree answer through uncut, so the tool does the
// same work as ripgrep alone.
const bigBudget = 1 << 20

// toolColumns is the long-line cut the grep tool uses at bigBudget: the
// raw run with "the tool's flags" must use it too.
const toolColumns = 500

func main() {
	log.SetFlags(0)
	corpus := flag.String("corpus", "", "tree to search (default: $(go env GOROOT)/src)")
	runs := flag.Int("runs", 11, "timed runs per case")
	pattern := flag.String("pattern", `sync\.Mutex`, "moderate pattern for the tool-versus-ripgrep comparison")
	flag.Parse()

	if *corpus == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			log.Fatalf("go env GOROOT: %v", err)
		}
		*corpus = strings.TrimSpace(string(out)) + "/src"
	}
	rg, err := search.LookRg("")
	if err != nil {
		log.Fatal(err)
	}
	ws, err := workspace.New(*corpus)
	if err != nil {
		log.Fatal(err)
	}
	b := &bench{
		reg: tools.Builtin(),
		env: &tool.Env{Workspace: ws, Settings: tool.Settings{Mode: protocol.ModeDefault, RgPath: rg, TokenBudget: bigBudget}},
		rg:  rg,
		dir: ws.Primary(),
	}

	moderateArgs := fmt.Sprintf(`{"pattern":%q,"max_matches":2000}`, *pattern)
	lines := b.checkComplete(moderateArgs)
	plainArgs := search.GrepArgs(search.GrepQuery{Dir: b.dir, Pattern: *pattern, MaxColumns: toolColumns})
	jsonArgs := []string{"--json", "--no-config", "--no-require-git", "--hidden", "--glob", "!.git", "--regexp", *pattern, "--", "."}

	cases := []*measure{
		{name: fmt.Sprintf("grep tool, %s (%d lines)", *pattern, lines), run: b.tool("grep", moderateArgs)},
		{name: "rg --json, same pattern", run: b.raw(jsonArgs)},
		{name: "rg, the tool's exact flags", run: b.raw(plainArgs)},
		{name: "grep tool, func, max_matches 100", run: b.tool("grep", `{"pattern":"func","max_matches":100}`)},
		{name: "grep tool, e, max_matches 100", run: b.tool("grep", `{"pattern":"e","max_matches":100}`)},
		{name: "glob tool, *.go, max_results 500", run: b.tool("glob", `{"pattern":"*.go"}`)},
		{name: "glob tool, **/testdata/**, whole walk", run: b.tool("glob", `{"pattern":"**/testdata/**","max_results":5000}`)},
		{name: "list_dir tool, the tree's top", run: b.tool("list_dir", `{}`)},
	}
	for range *runs {
		for _, c := range cases {
			c.once()
		}
	}

	fmt.Printf("corpus %s (%d files), %s, %d CPUs, median of %d runs\n\n", b.dir, b.countFiles(), b.rgVersion(), runtime.NumCPU(), *runs)
	fmt.Printf("%-42s %10s %10s\n", "case", "wall", "cpu")
	for _, c := range cases {
		fmt.Printf("%-42s %10s %10s\n", c.name, ms(c.medianWall()), ms(c.medianCPU()))
	}
	tool, js, plain := cases[0], cases[1], cases[2]
	fmt.Println()
	fmt.Printf("%-42s %10s %10s\n", "grep tool / rg --json (target ≤ 1.10)", ratio(tool.medianWall(), js.medianWall()), ratio(tool.medianCPU(), js.medianCPU()))
	fmt.Printf("%-42s %10s %10s\n", "grep tool / rg, same flags", ratio(tool.medianWall(), plain.medianWall()), ratio(tool.medianCPU(), plain.medianCPU()))
	fmt.Printf("%-42s %10s\n", "broad grep, max 100 (target < 50 ms)", ms(max(cases[3].medianWall(), cases[4].medianWall())))
}

type bench struct {
	reg *tool.Registry
	env *tool.Env
	rg  string
	dir string
}

// tool returns a run of one tool call through the registry, as the daemon
// makes it. Each call gets a fresh session: the repeat guard would refuse
// the third identical call.
func (b *bench) tool(name, args string) func() {
	return func() {
		r := b.reg.Invoke(context.Background(), &tool.Call{Name: name, Args: json.RawMessage(args), RequestID: "bench",
			Budget: tool.NewBudget(bigBudget, 0), Session: tool.NewSession(), Env: b.env})
		if r.IsError {
			log.Fatalf("%s %s: %s", name, args, r.Content)
		}
	}
}

// raw returns a run of ripgrep alone, its output read through a pipe and
// dropped.
func (b *bench) raw(args []string) func() {
	return func() {
		cmd := exec.Command(b.rg, args...)
		cmd.Dir = b.dir
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			log.Fatalf("rg %s: %v", strings.Join(args, " "), err)
		}
	}
}

// checkComplete makes sure the moderate search is not cut short, or the
// comparison would flatter the tool; it returns the tool's line count.
func (b *bench) checkComplete(args string) int {
	r := b.reg.Invoke(context.Background(), &tool.Call{Name: "grep", Args: json.RawMessage(args), Budget: tool.NewBudget(bigBudget, 0), Session: tool.NewSession(), Env: b.env})
	if r.IsError || strings.Contains(r.Content, "[stopped after") || strings.HasPrefix(r.Content, "No matches") {
		log.Fatalf("the moderate pattern must match fewer than max_matches lines; got: %.300s", r.Content)
	}
	return strings.Count(r.Content, "\n")
}

func (b *bench) countFiles() int {
	out, err := exec.Command(b.rg, "--files", "--no-config", "--no-require-git", "--hidden", "--glob", "!.git", b.dir).Output()
	if err != nil {
		log.Fatal(err)
	}
	return strings.Count(string(out), "\n")
}

func (b *bench) rgVersion() string {
	out, _ := exec.Command(b.rg, "--version").Output()
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// measure is one case and its timings.
type measure struct {
	name      string
	run       func()
	wall, cpu []time.Duration
}

func (m *measure) once() {
	cpu0 := cpuTime()
	start := time.Now()
	m.run()
	m.wall = append(m.wall, time.Since(start))
	m.cpu = append(m.cpu, cpuTime()-cpu0)
}

func (m *measure) medianWall() time.Duration { return median(m.wall) }
func (m *measure) medianCPU() time.Duration  { return median(m.cpu) }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func ratio(a, b time.Duration) string { return fmt.Sprintf("%.2f×", float64(a)/float64(b)) }
