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
	"slices"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/uri"

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
	env := []string{
		"XDG_STATE_HOME=" + filepath.Join(tmp, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"),
		"XDG_DATA_HOME=" + filepath.Join(tmp, "data"),
		"TETHER_LOG_LEVEL=warn",
	}
	d, err := rpctest.Start(context.Background(), bin, env, nil)
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
			c0, err := cpuTime(d.Pid())
			if err != nil {
				return err
			}
			t0 := time.Now()
			if err := w.f(); err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			took := time.Since(t0)
			c1, err := cpuTime(d.Pid())
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
	base := median(times[0])
	for i, w := range ways {
		m := median(times[i])
		fmt.Printf("| %-44s | %9s | %9s | %12s | %-9s |\n", w.name, us(m), us(percentile(times[i], 90)), us(cpu[i]/time.Duration(rounds)), fmt.Sprintf("%.2f×", float64(m)/float64(base)))
	}
	return nil
}

// cpuTime reads the user and system CPU time a process has used, in
// clock ticks; summed over many rounds the ticks' coarseness averages out.
func cpuTime(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.Atoi(f[11])
	stime, err2 := strconv.Atoi(f[12])
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond, nil
}

func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d.Nanoseconds())/1e3) }
