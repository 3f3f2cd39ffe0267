// Command daemon measures `tether serve` from the outside, as the editor
// sees it: a 4 KB read_file round trip over real stdio, the time from
// starting the process to the initialize reply, and the resident memory
// once initialized. It prints figures; it asserts nothing. run.sh builds
// the binary and runs it.
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

func main() {
	bin := flag.String("bin", "", "the tether binary to measure (required)")
	calls := flag.Int("calls", 5000, "read_file round trips to time")
	starts := flag.Int("starts", 20, "daemon starts to time")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: daemon -bin PATH [-calls N] [-starts N]")
		os.Exit(2)
	}
	if err := run(*bin, *calls, *starts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type row struct {
	what, figure, target string
}

func run(bin string, calls, starts int) error {
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
	env := measure.TetherEnv(tmp, "warn")

	var rows []row
	startTimes, err := timeStarts(bin, ws, env, starts)
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("start → initialize reply, median of %d", starts), measure.Ms(measure.Median(startTimes)), "< 20 ms"})

	d, err := rpctest.Start(context.Background(), bin, env, nil)
	if err != nil {
		return err
	}
	defer d.Kill()
	if err := initialize(d, ws); err != nil {
		return err
	}
	rss, err := rpctest.ProcKiB(d.Pid(), "VmRSS")
	if err != nil {
		return err
	}
	rows = append(rows, row{"idle RSS after initialize", measure.MiB(rss), "< 25 MB"})

	// A call the registry answers at once (no such tool): what is left is
	// the protocol's own cost, framing, dispatch and the pipes.
	bare, err := timeCalls(d, calls, func(i int) any {
		return map[string]any{"name": "no_such_tool", "arguments": map[string]any{"i": i}, "requestId": "bench"}
	}, nil)
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("protocol-only round trip, median of %d", calls), measure.Us(measure.Median(bare)), ""})

	cpu0, err := measure.ProcCPU(d.Pid())
	if err != nil {
		return err
	}
	trips, size, err := timeReads(d, calls)
	if err != nil {
		return err
	}
	cpu1, err := measure.ProcCPU(d.Pid())
	if err != nil {
		return err
	}
	rows = append(rows,
		row{fmt.Sprintf("read_file %d B round trip, median of %d", size, calls), measure.Us(measure.Median(trips)), "< 100 µs"},
		row{fmt.Sprintf("read_file %d B round trip, p90", size), measure.Us(measure.Percentile(trips, 90)), ""},
		row{fmt.Sprintf("read_file %d B round trip, p99", size), measure.Us(measure.Percentile(trips, 99)), ""},
		// CPU time does not depend on how busy the machine is; latency does.
		row{"daemon CPU (user+sys) per read_file call", measure.Us((cpu1 - cpu0) / time.Duration(calls+calls/10)), ""},
	)
	if rss, err = rpctest.ProcKiB(d.Pid(), "VmRSS"); err == nil {
		rows = append(rows, row{fmt.Sprintf("RSS after %d calls", calls), measure.MiB(rss), ""})
	}
	print(rows)
	return nil
}

func initialize(d *rpctest.Daemon, ws string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := d.Call(ctx, protocol.MethodInitialize, protocol.InitializeParams{
		ClientInfo:       protocol.ClientInfo{Name: "bench"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(ws), Name: "ws"}},
	}, nil)
	if err != nil {
		return fmt.Errorf("initialize: %w\n%s", err, d.Stderr())
	}
	return nil
}

// timeStarts starts the daemon n times and times each from exec to the
// initialize reply.
func timeStarts(bin, ws string, env []string, n int) ([]time.Duration, error) {
	var times []time.Duration
	for range n {
		t0 := time.Now()
		d, err := rpctest.Start(context.Background(), bin, env, nil)
		if err != nil {
			return nil, err
		}
		err = initialize(d, ws)
		times = append(times, time.Since(t0))
		d.Kill()
		if err != nil {
			return nil, err
		}
	}
	return times, nil
}

// timeReads times n read_file calls, alternating two 4 KB files so that
// no call repeats the one before it.
func timeReads(d *rpctest.Daemon, n int) ([]time.Duration, int, error) {
	size := 0
	times, err := timeCalls(d, n, func(i int) any {
		return map[string]any{"name": "read_file", "arguments": map[string]any{"path": [2]string{"a.txt", "b.txt"}[i%2]}, "requestId": "bench"}
	}, func(res protocol.ToolCallResult) error {
		if res.IsError {
			return fmt.Errorf("read_file: %s", res.Content)
		}
		size = len(res.Content)
		return nil
	})
	return times, size, err
}

// timeCalls times n tools/call round trips, each from writing the call to
// reading its reply; check, if set, looks at each result after the clock
// stops. A tenth more calls run first, untimed, to warm up.
func timeCalls(d *rpctest.Daemon, n int, params func(i int) any, check func(protocol.ToolCallResult) error) ([]time.Duration, error) {
	ctx := context.Background()
	times := make([]time.Duration, 0, n)
	for i := range n + n/10 {
		t0 := time.Now()
		call, err := d.Go(ctx, "c"+strconv.Itoa(i), protocol.MethodToolsCall, params(i))
		if err != nil {
			return nil, err
		}
		raw, err := call.Wait(ctx)
		took := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if check != nil {
			var res protocol.ToolCallResult
			if err := json.Unmarshal(raw, &res); err != nil {
				return nil, err
			}
			if err := check(res); err != nil {
				return nil, err
			}
		}
		if i >= n/10 {
			times = append(times, took)
		}
	}
	return times, nil
}

func print(rows []row) {
	fmt.Printf("| %-44s | %10s | %-8s |\n", "measure", "figure", "target")
	fmt.Printf("|%s|%s|%s|\n", strings.Repeat("-", 46), strings.Repeat("-", 12), strings.Repeat("-", 10))
	for _, r := range rows {
		fmt.Printf("| %-44s | %10s | %-8s |\n", r.what, r.figure, r.target)
	}
}
