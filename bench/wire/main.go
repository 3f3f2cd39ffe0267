// Command wire measures the protocol's cost on several builds of `tether
// serve` side by side, over real stdio: one small call (a 4 KiB read_file
// round trip) and one large (a write_file of 1 MiB, a new file each time,
// whose content is one long JSON string). Each daemon runs in its own
// process and they take turns, round after round, so the machine's load
// falls on all of them alike. It prints, for each build, the median and
// 90th percentile round trip as the client sees it and the daemon's own
// CPU time per call, with their ratios to the first build. It asserts
// nothing. run.sh builds the binaries and runs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/protocol"
)

// builds collects -bin NAME=PATH flags, in order.
type builds []build

type build struct{ name, path string }

func (b *builds) String() string { return fmt.Sprint(*b) }

func (b *builds) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return errors.New("want NAME=PATH")
	}
	*b = append(*b, build{name, path})
	return nil
}

func main() {
	var bins builds
	flag.Var(&bins, "bin", "a build to measure, as `NAME=PATH`; repeat for each (ratios are to the first)")
	rounds := flag.Int("rounds", 20, "rounds; in each, every build runs one batch")
	batch := flag.Int("batch", 500, "read_file round trips in a batch")
	writes := flag.Int("writes", 2, "1 MiB write_file calls in a round (0: none)")
	flag.Parse()
	if len(bins) == 0 {
		fmt.Fprintln(os.Stderr, "usage: wire -bin NAME=PATH [-bin NAME=PATH]... [-rounds N] [-batch N]")
		os.Exit(2)
	}
	if err := run(bins, *rounds, *batch, *writes); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// daemon is one build, running, with its figures.
type daemon struct {
	build
	d      *rpctest.Daemon
	calls  int
	reads  figures
	writes figures
	size   int
}

// figures are one workload's timings on one build.
type figures struct {
	wall  []time.Duration // per call
	cpu   time.Duration   // the daemon's CPU over every timed call
	timed int
}

func run(bins builds, rounds, batch, writes int) error {
	tmp, err := os.MkdirTemp("", "tether-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	// Two files, alternated, so no call repeats the one before it (three
	// identical calls in a row are refused by design).
	line := strings.Repeat("x", 63) + "\n"
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat(line, 64)), 0o644); err != nil {
			return err
		}
	}
	var ds []*daemon
	defer func() {
		for _, d := range ds {
			d.d.Kill()
		}
	}()
	for i, b := range bins {
		env := measure.TetherEnv(filepath.Join(tmp, strconv.Itoa(i)), "warn")
		d, err := rpctest.Start(context.Background(), b.path, env, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		ds = append(ds, &daemon{build: b, d: d})
		if err := initialize(d, ws); err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
	}
	content := strings.Repeat(codeLine, (1<<20)/len(codeLine))
	for _, d := range ds { // warm up: caches, the workers' stacks
		if _, err := d.read(batch); err != nil {
			return err
		}
		if writes > 0 {
			if _, err := d.write(content, 1); err != nil {
				return err
			}
		}
	}
	for r := range rounds {
		for i := range ds {
			d := ds[(i+r)%len(ds)]
			if err := d.timeCalls(&d.reads, batch, d.read); err != nil {
				return err
			}
			if writes > 0 {
				if err := d.timeCalls(&d.writes, writes, func(n int) ([]time.Duration, error) { return d.write(content, n) }); err != nil {
					return err
				}
			}
		}
	}
	fmt.Printf("%d rounds; in each, every build in turn: %d read_file calls of %d B, then %d write_file calls of %d B\n",
		rounds, batch, ds[0].size, writes, len(content))
	fmt.Printf("%-24s %10s %8s %10s %10s %8s\n", "call, build", "median", "ratio", "p90", "cpu/call", "ratio")
	table := func(what string, f func(d *daemon) *figures) {
		base := f(ds[0])
		for _, d := range ds {
			x := f(d)
			if x.timed == 0 {
				continue
			}
			m := measure.Median(x.wall)
			cpu := x.cpu / time.Duration(x.timed)
			fmt.Printf("%-24s %10s %8s %10s %10s %8s\n", what+", "+d.name, measure.Dur(m), measure.Ratio(m, measure.Median(base.wall)),
				measure.Dur(measure.Percentile(x.wall, 90)), measure.Dur(cpu), measure.Ratio(cpu, base.cpu/time.Duration(base.timed)))
		}
	}
	table("read 4 KiB", func(d *daemon) *figures { return &d.reads })
	table("write 1 MiB", func(d *daemon) *figures { return &d.writes })
	return nil
}

// codeLine is what the written file holds, line after line.
const codeLine = "func f(x int) int { return x * 2 } // a line of ordinary code\n"

// timeCalls runs n calls with calls and adds their timings, and the
// daemon's CPU meanwhile, to f.
func (d *daemon) timeCalls(f *figures, n int, calls func(n int) ([]time.Duration, error)) error {
	cpu0, err := measure.ProcCPU(d.d.Pid())
	if err != nil {
		return err
	}
	took, err := calls(n)
	if err != nil {
		return err
	}
	cpu1, err := measure.ProcCPU(d.d.Pid())
	if err != nil {
		return err
	}
	f.wall = append(f.wall, took...)
	f.cpu += cpu1 - cpu0
	f.timed += n
	return nil
}

func initialize(d *rpctest.Daemon, ws string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Writes need no approval, and a 1 MiB write fits the output budget.
	_, err := d.Call(ctx, protocol.MethodInitialize, protocol.InitializeParams{
		ClientInfo:       protocol.ClientInfo{Name: "bench"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(ws), Name: "ws"}},
		Settings:         &protocol.Settings{PermissionMode: protocol.ModeBypass, TokenBudget: 1 << 20},
	}, nil)
	if err != nil {
		return fmt.Errorf("initialize: %w\n%s", err, d.Stderr())
	}
	return nil
}

// read times n read_file round trips, each from writing the call to
// reading its reply, alternating the two files.
func (d *daemon) read(n int) ([]time.Duration, error) {
	return d.tools(n, func() protocol.ToolCallParams {
		return protocol.ToolCallParams{Name: "read_file", Arguments: json.RawMessage(`{"path":"` + [2]string{"a.txt", "b.txt"}[d.calls%2] + `"}`), RequestID: "bench"}
	})
}

// write times n write_file round trips, each a new file in a request of
// its own.
func (d *daemon) write(content string, n int) ([]time.Duration, error) {
	return d.tools(n, func() protocol.ToolCallParams {
		args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("out/%s-%d.go", d.name, d.calls), "content": content})
		return protocol.ToolCallParams{Name: "write_file", Arguments: args, RequestID: fmt.Sprintf("w%d", d.calls)}
	})
}

// tools times n tools/call round trips, each from writing the call to
// reading its reply; every call must succeed.
func (d *daemon) tools(n int, next func() protocol.ToolCallParams) ([]time.Duration, error) {
	ctx := context.Background()
	times := make([]time.Duration, 0, n)
	for range n {
		d.calls++
		params := next()
		t0 := time.Now()
		call, err := d.d.Go(ctx, "c"+strconv.Itoa(d.calls), protocol.MethodToolsCall, params)
		if err != nil {
			return nil, err
		}
		raw, err := call.Wait(ctx)
		times = append(times, time.Since(t0))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		var res protocol.ToolCallResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		if res.IsError {
			return nil, fmt.Errorf("%s: %s: %s", d.name, params.Name, res.Content)
		}
		if params.Name == "read_file" {
			d.size = len(res.Content)
		}
	}
	return times, nil
}
