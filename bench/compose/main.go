// Command compose measures what a compose program saves over separate
// calls, from the outside, over real stdio: ten 4 KB read_file calls made
// as ten tools/call round trips one after another (as a model makes them,
// one per turn), the same ten sent at once (pipelined), and one compose
// call whose program reads the ten with Promise.all. Rounds alternate the
// three, so each sees the same machine load. It prints figures; it asserts
// nothing. run.sh builds the binary and runs it.
package main

import (
	"context"
	"encoding/json"
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

const files = 10

func main() {
	bin := flag.String("bin", "", "the tether binary to measure (required)")
	rounds := flag.Int("rounds", 200, "rounds of each way to time")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: compose -bin PATH [-rounds N]")
		os.Exit(2)
	}
	if err := run(*bin, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(bin string, rounds int) error {
	tmp, err := os.MkdirTemp("", "tether-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	line := strings.Repeat("x", 63) + "\n"
	var names []string
	for i := range files {
		name := fmt.Sprintf("f%d.txt", i)
		names = append(names, name)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat(line, 64)), 0o644); err != nil {
			return err
		}
	}
	d, err := rpctest.Start(context.Background(), bin, measure.TetherEnv(tmp, "warn"), nil)
	if err != nil {
		return err
	}
	defer d.Kill()
	ctx := context.Background()
	if _, err := d.Call(ctx, protocol.MethodInitialize, protocol.InitializeParams{
		ClientInfo:       protocol.ClientInfo{Name: "bench"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(ws), Name: "ws"}},
	}, nil); err != nil {
		return fmt.Errorf("initialize: %w\n%s", err, d.Stderr())
	}

	id := 0
	next := func() string { id++; return "b" + strconv.Itoa(id) }
	read := func(name string) any {
		return map[string]any{"name": "read_file", "arguments": map[string]any{"path": name}, "requestId": "bench"}
	}
	check := func(raw json.RawMessage, err error) error {
		if err != nil {
			return err
		}
		var res protocol.ToolCallResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("%s", res.Content)
		}
		return nil
	}
	sequential := func() error {
		for _, n := range names {
			c, err := d.Go(ctx, next(), protocol.MethodToolsCall, read(n))
			if err != nil {
				return err
			}
			if err := check(c.Wait(ctx)); err != nil {
				return err
			}
		}
		return nil
	}
	pipelined := func() error {
		var calls []*rpctest.Pending
		for _, n := range names {
			c, err := d.Go(ctx, next(), protocol.MethodToolsCall, read(n))
			if err != nil {
				return err
			}
			calls = append(calls, c)
		}
		for _, c := range calls {
			if err := check(c.Wait(ctx)); err != nil {
				return err
			}
		}
		return nil
	}
	list, _ := json.Marshal(names)
	round := 0
	program := func() error {
		round++ // each program differs: identical calls in a row are refused by design
		code := fmt.Sprintf(`const rs = await Promise.all(%s.map(p => tools.tether.read_file({path: p})));
return {round: %d, lines: rs.map(r => r.output.split("\n").length)}`, list, round)
		c, err := d.Go(ctx, next(), protocol.MethodToolsCall, map[string]any{"name": "compose", "arguments": map[string]any{"code": code}, "requestId": "bench"})
		if err != nil {
			return err
		}
		return check(c.Wait(ctx))
	}

	ways := []struct {
		name string
		f    func() error
	}{{"10 tools/call read_file, one after another", sequential}, {"10 tools/call read_file, sent at once", pipelined}, {"1 compose: Promise.all of 10 read_file", program}}
	times := make([][]time.Duration, len(ways))
	cpu := make([]time.Duration, len(ways))
	for r := range rounds + rounds/10 {
		for i, w := range ways {
			// In clock ticks: summed over many rounds, their coarseness averages out.
			c0, err := measure.ProcCPU(d.Pid())
			if err != nil {
				return err
			}
			t0 := time.Now()
			if err := w.f(); err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			took := time.Since(t0)
			c1, err := measure.ProcCPU(d.Pid())
			if err != nil {
				return err
			}
			if r >= rounds/10 { // a tenth of the rounds warm up, untimed
				times[i] = append(times[i], took)
				cpu[i] += c1 - c0
			}
		}
	}
	fmt.Printf("| %-44s | %9s | %9s | %12s | %-9s |\n", "10 reads of 4 KB files", "median", "p90", "daemon CPU", "vs first")
	fmt.Printf("|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 46), strings.Repeat("-", 11), strings.Repeat("-", 11), strings.Repeat("-", 14), strings.Repeat("-", 11))
	base := measure.Median(times[0])
	for i, w := range ways {
		m := measure.Median(times[i])
		fmt.Printf("| %-44s | %9s | %9s | %12s | %-9s |\n", w.name, measure.Us(m), measure.Us(measure.Percentile(times[i], 90)), measure.Us(cpu[i]/time.Duration(rounds)), measure.Ratio(m, base))
	}
	return nil
}
