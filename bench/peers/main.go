// Command peers measures Tether side by side with what it replaces or
// competes with, and prints one table of ratios:
//
//   - the reference MCP filesystem server (Node, from npm) for reading,
//     writing and editing files and listing a folder, each call over real
//     stdio, the two servers' calls interleaved one by one;
//   - a do-nothing Go stdio server (bench/peers/nullserver) for the
//     protocol's own cost and for start-up, and that same trivial binary
//     for `tether version`;
//   - ripgrep run directly for glob and grep on the Go source tree;
//   - a shadow git repository (add -A and commit) for an undo checkpoint.
//
// Every ratio is Tether's time over its peer's, both measured in the same
// run, interleaved, so the machine's load falls on both alike; absolute
// times move with the load. Figures are printed, never asserted. run.sh
// builds the programs and installs the MCP server on first use.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/rpctest"
)

type options struct {
	tether, null, peer, node, rg, corpus string
	calls, rounds, starts                int
	checkpointWorker                     string
	workerRounds                         int
	only, tetherEnv, against             string
}

func main() {
	var o options
	flag.StringVar(&o.tether, "tether", "", "the tether binary (required)")
	flag.StringVar(&o.null, "null", "", "the do-nothing Go stdio server, bench/peers/nullserver (required)")
	flag.StringVar(&o.peer, "peer", "", "the MCP filesystem server's dist/index.js (required)")
	flag.StringVar(&o.node, "node", "node", "the Node.js binary")
	flag.StringVar(&o.rg, "rg", "rg", "the ripgrep binary")
	flag.StringVar(&o.corpus, "corpus", "", "the tree for glob, grep and checkpoints (default: $(go env GOROOT)/src, copied)")
	flag.IntVar(&o.calls, "calls", 2000, "round trips per small call (unknown method, 4 KiB read, list)")
	flag.IntVar(&o.rounds, "rounds", 15, "rounds of each larger workload (1 MiB write and edit, glob, grep, checkpoint)")
	flag.IntVar(&o.starts, "starts", 20, "process starts of each server")
	flag.StringVar(&o.only, "only", "", "run only these parts, comma-separated: starts, version, calls, search, checkpoints")
	flag.StringVar(&o.against, "against", "", "another tether binary: compare the two builds' calls, interleaved, instead of the peers (part \"ab\")")
	flag.StringVar(&o.tetherEnv, "tether-env", "", "extra environment for tether serve, comma-separated NAME=VALUE pairs")
	flag.StringVar(&o.checkpointWorker, "checkpoint-worker", "", "internal: make checkpoints in this folder and exit (for counting fsyncs)")
	flag.IntVar(&o.workerRounds, "worker-rounds", 0, "internal: checkpoints the worker makes")
	flag.Parse()
	if o.checkpointWorker != "" {
		if err := checkpointWorker(o.checkpointWorker, o.workerRounds); err != nil {
			fmt.Fprintln(os.Stderr, "checkpoint worker:", err)
			os.Exit(1)
		}
		return
	}
	if o.tether == "" || o.null == "" || o.peer == "" {
		fmt.Fprintln(os.Stderr, "usage: peers -tether BIN -null BIN -peer INDEX.JS [-calls N] [-rounds N] [-starts N] [-corpus DIR]")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct {
	what, tether, peer, ratio, target, met string
}

type bench struct {
	o     options
	tmp   string
	ws    string // small workspace: the files read, written and edited
	tree  string // a copy of the corpus
	env   []string
	rows  []row
	notes []string
}

func (b *bench) add(r row) {
	b.rows = append(b.rows, r)
	fmt.Fprintf(os.Stderr, "  %s: %s vs %s (%s)\n", r.what, r.tether, r.peer, r.ratio)
}

func run(o options) error {
	if o.corpus == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		o.corpus = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	rg, err := exec.LookPath(o.rg)
	if err != nil {
		return err
	}
	o.rg = rg
	tmp, err := os.MkdirTemp("", "tether-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{o: o, tmp: tmp, ws: filepath.Join(tmp, "ws"), tree: filepath.Join(tmp, "src")}
	b.env = append(measure.TetherEnv(tmp, "warn"), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	if err := b.makeWorkspace(); err != nil {
		return err
	}
	files, size, err := measure.CopyTree(o.corpus, b.tree)
	if err != nil {
		return fmt.Errorf("copying %s: %w", o.corpus, err)
	}
	fmt.Fprintf(os.Stderr, "corpus: a copy of %s, %d files, %.0f MB\n", o.corpus, files, float64(size)/1e6)

	steps := []struct {
		name string
		run  func() error
	}{{"starts", b.starts}, {"version", b.version}, {"calls", b.calls}, {"search", b.search}, {"checkpoints", b.checkpoints}, {"ab", b.ab}}
	for _, step := range steps {
		if o.only != "" && !slices.Contains(strings.Split(o.only, ","), step.name) || (step.name == "ab") != (o.against != "") {
			continue
		}
		if err := step.run(); err != nil {
			return err
		}
	}
	b.print(files)
	return nil
}

// makeWorkspace writes the files the calls work on.
func (b *bench) makeWorkspace() error {
	line := strings.Repeat("x", 63) + "\n"
	files := map[string]string{
		"a.txt": strings.Repeat(line, 64), // 4 KiB
		"b.txt": strings.Repeat(line, 64),
	}
	big := bigFile()
	for _, side := range []string{"tether", "peer"} {
		files["edit-"+side+".go"] = big
		files["over-"+side+".go"] = big
	}
	for i := range 100 {
		files[fmt.Sprintf("list/file-%03d.txt", i)] = "x\n"
	}
	for name, content := range files {
		p := filepath.Join(b.ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(b.ws, "out"), 0o755)
}

// bigFile is about 1 MiB of Go-like source, with two marked lines the
// edits swap.
func bigFile() string {
	var s strings.Builder
	for i := 0; s.Len() < 1<<20; i++ {
		fmt.Fprintf(&s, "func f%06d(x int) int { return x * %d } // a line of ordinary code\n", i, i)
		if i == 5000 {
			s.WriteString("// MARK one\n")
		}
	}
	return s.String()
}

// startTether starts `tether serve` and initializes it on the workspace
// and the tree, in bypass mode (no approvals), with a budget large enough
// for 1 MiB reads and writes.
func (b *bench) startTether() (*server, error) { return b.startTetherBin(b.o.tether) }

func (b *bench) startTetherBin(bin string, extraEnv ...string) (*server, error) {
	env := append(slices.Clip(b.env), extraEnv...)
	if b.o.tetherEnv != "" {
		env = append(slices.Clip(env), strings.Split(b.o.tetherEnv, ",")...)
	}
	s, err := startServer("tether", true, env, bin, "serve")
	if err != nil {
		return nil, err
	}
	_, _, err = s.call("initialize", map[string]any{
		"clientInfo":       map[string]any{"name": "bench"},
		"workspaceFolders": []map[string]any{{"uri": "file://" + b.ws, "name": "ws"}, {"uri": "file://" + b.tree, "name": "src"}},
		"settings":         map[string]any{"permissionMode": "bypass", "tokenBudget": 1 << 20, "rgPath": b.o.rg},
	})
	if err != nil {
		s.stop()
		return nil, err
	}
	return s, s.notify("initialized", map[string]any{})
}

// startPeer starts the MCP filesystem server on the same folders.
func (b *bench) startPeer() (*server, error) {
	s, err := startServer("mcp-filesystem", false, b.env, b.o.node, b.o.peer, b.ws, b.tree)
	if err != nil {
		return nil, err
	}
	_, _, err = s.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "bench", "version": "1"},
	})
	if err != nil {
		s.stop()
		return nil, err
	}
	return s, s.notify("notifications/initialized", nil)
}

func (b *bench) startNull() (*server, error) {
	s, err := startServer("nullserver", true, nil, b.o.null)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.call("initialize", map[string]any{}); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// starts times each server from exec to the reply to initialize, the
// three interleaved.
func (b *bench) starts() error {
	fmt.Fprintln(os.Stderr, "starts")
	type starter struct {
		start func() (*server, error)
		times []time.Duration
	}
	ss := []*starter{{start: b.startTether}, {start: b.startPeer}, {start: b.startNull}}
	for i := range b.o.starts + 1 {
		for j := range ss {
			st := ss[(i+j)%len(ss)]
			t0 := time.Now()
			s, err := st.start()
			took := time.Since(t0)
			if err != nil {
				return err
			}
			s.stop()
			if i > 0 { // the first round warms the page cache
				st.times = append(st.times, took)
			}
		}
	}
	t, p, n := measure.Median(ss[0].times), measure.Median(ss[1].times), measure.Median(ss[2].times)
	b.add(row{"start → first answer (initialize), median", measure.Ms(t), measure.Ms(p) + " (MCP)", measure.Ratio(t, p), "< 10 ms", met(t < 10*time.Millisecond)})
	b.add(row{"start → first answer, vs the do-nothing Go server", measure.Ms(t), measure.Ms(n) + " (null)", measure.Ratio(t, n), "", ""})
	return nil
}

// version times `tether version` against the trivial Go binary.
func (b *bench) version() error {
	fmt.Fprintln(os.Stderr, "version")
	var tv, nv []time.Duration
	for i := range 2*b.o.starts + 1 {
		for j := range 2 {
			bin := [2]string{b.o.tether, b.o.null}[(i+j)%2]
			t0 := time.Now()
			if err := exec.Command(bin, "version").Run(); err != nil {
				return fmt.Errorf("%s version: %w", bin, err)
			}
			if took := time.Since(t0); i > 0 {
				if bin == b.o.tether {
					tv = append(tv, took)
				} else {
					nv = append(nv, took)
				}
			}
		}
	}
	t, n := measure.Median(tv), measure.Median(nv)
	b.add(row{"`tether version`, median", measure.Ms(t), measure.Ms(n) + " (trivial Go)", measure.Ratio(t, n), "< 5 ms", met(t < 5*time.Millisecond)})
	return nil
}

// calls times the per-call workloads, Tether's and the peer's calls
// interleaved one by one, and the daemon's memory.
func (b *bench) calls() error {
	fmt.Fprintln(os.Stderr, "calls")
	t, err := b.startTether()
	if err != nil {
		return err
	}
	defer t.stop()
	p, err := b.startPeer()
	if err != nil {
		return err
	}
	defer p.stop()
	n, err := b.startNull()
	if err != nil {
		return err
	}
	defer n.stop()
	idle, err := rpctest.ProcKiB(t.pid(), "VmRSS")
	if err != nil {
		return err
	}
	peerIdle, _ := rpctest.ProcKiB(p.pid(), "VmRSS")

	// An unknown method: the protocol's own cost, against the floor.
	tu, nu, err := interleave(b.o.calls, func(int) (time.Duration, error) {
		return errorRoundTrip(t, "bench/nothing")
	}, func(int) (time.Duration, error) {
		return errorRoundTrip(n, "bench/nothing")
	})
	if err != nil {
		return err
	}
	b.add(row{"unknown method round trip, p50", measure.Us(measure.Median(tu)), measure.Us(measure.Median(nu)) + " (null)", measure.Ratio(measure.Median(tu), measure.Median(nu)), "≤ 1.5×", met(ratio(tu, nu) <= 1.5)})

	// A 4 KiB read: two files alternated, so no call repeats the last.
	files := [2]string{"a.txt", "b.txt"}
	cpu0, _ := measure.ProcCPU(t.pid())
	tr, pr, err := interleave(b.o.calls, func(i int) (time.Duration, error) {
		return took(t.toolCall(map[string]any{"name": "read_file", "arguments": map[string]any{"path": files[i%2]}, "requestId": "bench"}))
	}, func(i int) (time.Duration, error) {
		return took(p.toolCall(map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": filepath.Join(b.ws, files[i%2])}}))
	})
	if err != nil {
		return err
	}
	cpu1, _ := measure.ProcCPU(t.pid())
	b.add(row{"4 KiB read_file round trip, p50", measure.Us(measure.Median(tr)), measure.Us(measure.Median(pr)), measure.Ratio(measure.Median(tr), measure.Median(pr)),
		"≤ 100 µs, ≤ 0.25×", met(measure.Median(tr) <= 100*time.Microsecond && ratio(tr, pr) <= 0.25)})
	b.add(row{"4 KiB read_file round trip, p90", measure.Us(measure.Percentile(tr, 90)), measure.Us(measure.Percentile(pr, 90)), measure.Ratio(measure.Percentile(tr, 90), measure.Percentile(pr, 90)), "", ""})
	if cpu1 > cpu0 {
		b.notes = append(b.notes, fmt.Sprintf("daemon CPU per 4 KiB read_file call (user+sys, from /proc, 10 ms ticks): %s", measure.Us((cpu1-cpu0)/time.Duration(b.o.calls+b.o.calls/10))))
	}

	// A folder of 100 files, named two ways in turn (no call repeats the
	// last: three identical calls in a row are refused by design).
	dirs := [2]string{"list", "./list"}
	tl, pl, err := interleave(b.o.calls/10, func(i int) (time.Duration, error) {
		return took(t.toolCall(map[string]any{"name": "list_dir", "arguments": map[string]any{"path": dirs[i%2]}, "requestId": "bench"}))
	}, func(i int) (time.Duration, error) {
		return took(p.toolCall(map[string]any{"name": "list_directory", "arguments": map[string]any{"path": filepath.Join(b.ws, dirs[i%2])}}))
	})
	if err != nil {
		return err
	}
	b.add(row{"list a folder of 100 files, p50", measure.Us(measure.Median(tl)), measure.Us(measure.Median(pl)), measure.Ratio(measure.Median(tl), measure.Median(pl)), "", ""})

	// A 1 MiB write of a new file: each of Tether's in a request of its
	// own, checkpointed durably (and the file synced); the peer syncs
	// nothing.
	content := bigFile()
	tw, pw, err := interleave(b.o.rounds, func(i int) (time.Duration, error) {
		return took(t.toolCall(map[string]any{"name": "write_file", "arguments": map[string]any{"path": fmt.Sprintf("out/t-%d.go", i), "content": content},
			"requestId": fmt.Sprintf("write-%d", i)}))
	}, func(i int) (time.Duration, error) {
		return took(p.toolCall(map[string]any{"name": "write_file", "arguments": map[string]any{"path": filepath.Join(b.ws, "out", fmt.Sprintf("p-%d.go", i)), "content": content}}))
	})
	if err != nil {
		return err
	}
	b.add(row{"write_file 1 MiB (new file), median", measure.Ms(measure.Median(tw)), measure.Ms(measure.Median(pw)), measure.Ratio(measure.Median(tw), measure.Median(pw)), "≤ 0.5×", met(ratio(tw, pw) <= 0.5)})

	// An edit of a 1 MiB file, one line swapped back and forth. Tether
	// wants the file read first.
	if _, _, err := t.toolCall(map[string]any{"name": "read_file", "arguments": map[string]any{"path": "edit-tether.go"}, "requestId": "bench"}); err != nil {
		return err
	}
	swap := func(i int) (string, string) {
		if i%2 == 0 {
			return "// MARK one", "// MARK two"
		}
		return "// MARK two", "// MARK one"
	}
	te, pe, err := interleave(b.o.rounds, func(i int) (time.Duration, error) {
		old, new := swap(i)
		return took(t.toolCall(map[string]any{"name": "edit_file", "arguments": map[string]any{"path": "edit-tether.go", "old_string": old, "new_string": new},
			"requestId": fmt.Sprintf("edit-%d", i)}))
	}, func(i int) (time.Duration, error) {
		old, new := swap(i)
		return took(p.toolCall(map[string]any{"name": "edit_file", "arguments": map[string]any{"path": filepath.Join(b.ws, "edit-peer.go"),
			"edits": []map[string]any{{"oldText": old, "newText": new}}}}))
	})
	if err != nil {
		return err
	}
	b.add(row{"edit_file on a 1 MiB file, median", measure.Ms(measure.Median(te)), measure.Ms(measure.Median(pe)), measure.Ratio(measure.Median(te), measure.Median(pe)), "", ""})

	// An existing 1 MiB file overwritten whole, two payloads that differ
	// in one line alternated, every call of Tether's in one request (its
	// checkpoint made by the first): the overwrite path itself, still
	// written so that a crash leaves the old file or the new one.
	if _, _, err := t.toolCall(map[string]any{"name": "read_file", "arguments": map[string]any{"path": "over-tether.go"}, "requestId": "overwrite"}); err != nil {
		return err
	}
	payloads := [2]string{strings.Replace(content, "// MARK one", "// MARK two", 1), content}
	to, po, err := interleave(b.o.rounds, func(i int) (time.Duration, error) {
		return took(t.toolCall(map[string]any{"name": "write_file", "arguments": map[string]any{"path": "over-tether.go", "content": payloads[i%2]}, "requestId": "overwrite"}))
	}, func(i int) (time.Duration, error) {
		return took(p.toolCall(map[string]any{"name": "write_file", "arguments": map[string]any{"path": filepath.Join(b.ws, "over-peer.go"), "content": payloads[i%2]}}))
	})
	if err != nil {
		return err
	}
	b.add(row{"write_file overwriting a 1 MiB file (2 payloads alternated, 1 request), median", measure.Ms(measure.Median(to)), measure.Ms(measure.Median(po)), measure.Ratio(measure.Median(to), measure.Median(po)), "≤ 0.5×", met(ratio(to, po) <= 0.5)})

	peak, err := rpctest.ProcKiB(t.pid(), "VmHWM")
	if err != nil {
		return err
	}
	peerPeak, _ := rpctest.ProcKiB(p.pid(), "VmHWM")
	b.add(row{"idle RSS after initialize", measure.MiB(idle), measure.MiB(peerIdle), "", "< 15 MiB", met(idle < 15<<10)})
	b.add(row{"peak RSS after the calls above", measure.MiB(peak), measure.MiB(peerPeak), "", "< 60 MiB", met(peak < 60<<10)})
	return nil
}

// ab compares two builds of Tether call by call, interleaved: -tether
// against -against. CPU is the daemon's, per call, from /proc.
func (b *bench) ab() error {
	fmt.Fprintln(os.Stderr, "ab")
	x, err := b.startTetherBin(b.o.tether)
	if err != nil {
		return err
	}
	defer x.stop()
	// Each build keeps its undo checkpoints in a store of its own: in a
	// shared one, the pruning of old checkpoints falls on whichever
	// daemon passes the limit, and its CPU with it.
	y, err := b.startTetherBin(b.o.against, "XDG_STATE_HOME="+filepath.Join(b.tmp, "state-against"))
	if err != nil {
		return err
	}
	defer y.stop()
	files := [2]string{"a.txt", "b.txt"}
	for _, w := range []struct {
		name string
		call func(s *server, i int) (time.Duration, error)
	}{
		{"unknown method round trip, p50", func(s *server, _ int) (time.Duration, error) { return errorRoundTrip(s, "bench/nothing") }},
		{"4 KiB read_file round trip, p50", func(s *server, i int) (time.Duration, error) {
			return took(s.toolCall(map[string]any{"name": "read_file", "arguments": map[string]any{"path": files[i%2]}, "requestId": "bench"}))
		}},
	} {
		cx0, _ := measure.ProcCPU(x.pid())
		cy0, _ := measure.ProcCPU(y.pid())
		tx, ty, err := interleave(b.o.calls, func(i int) (time.Duration, error) { return w.call(x, i) }, func(i int) (time.Duration, error) { return w.call(y, i) })
		if err != nil {
			return err
		}
		cx1, _ := measure.ProcCPU(x.pid())
		cy1, _ := measure.ProcCPU(y.pid())
		n := time.Duration(b.o.calls + max(b.o.calls/10, 1))
		b.add(row{w.name, measure.Us(measure.Median(tx)), measure.Us(measure.Median(ty)) + " (against)", measure.Ratio(measure.Median(tx), measure.Median(ty)), "", ""})
		b.add(row{"  daemon CPU per call", measure.Us((cx1 - cx0) / n), measure.Us((cy1-cy0)/n) + " (against)", measure.Ratio(cx1-cx0, cy1-cy0), "", ""})
	}
	content := bigFile()
	write := func(s *server, side string) func(int) (time.Duration, error) {
		return func(i int) (time.Duration, error) {
			return took(s.toolCall(map[string]any{"name": "write_file", "arguments": map[string]any{"path": fmt.Sprintf("out/%s-%d.go", side, i), "content": content},
				"requestId": fmt.Sprintf("write-%s-%d", side, i)}))
		}
	}
	cx0, _ := measure.ProcCPU(x.pid())
	cy0, _ := measure.ProcCPU(y.pid())
	tx, ty, err := interleave(b.o.rounds, write(x, "x"), write(y, "y"))
	if err != nil {
		return err
	}
	cx1, _ := measure.ProcCPU(x.pid())
	cy1, _ := measure.ProcCPU(y.pid())
	n := time.Duration(b.o.rounds + max(b.o.rounds/10, 1))
	b.add(row{"write_file 1 MiB (new file), median", measure.Ms(measure.Median(tx)), measure.Ms(measure.Median(ty)) + " (against)", measure.Ratio(measure.Median(tx), measure.Median(ty)), "", ""})
	b.add(row{"  daemon CPU per call", measure.Ms((cx1 - cx0) / n), measure.Ms((cy1-cy0)/n) + " (against)", measure.Ratio(cx1-cx0, cy1-cy0), "", ""})

	// The overwrite of calls(), each build on a file of its own, in a
	// request of its own (the two daemons share the project's undo store).
	payloads := [2]string{strings.Replace(content, "// MARK one", "// MARK two", 1), content}
	overwrite := func(s *server, file string) func(int) (time.Duration, error) {
		return func(i int) (time.Duration, error) {
			return took(s.toolCall(map[string]any{"name": "write_file", "arguments": map[string]any{"path": file, "content": payloads[i%2]}, "requestId": "overwrite-" + file}))
		}
	}
	for s, file := range map[*server]string{x: "over-tether.go", y: "over-peer.go"} {
		if _, _, err := s.toolCall(map[string]any{"name": "read_file", "arguments": map[string]any{"path": file}, "requestId": "overwrite-" + file}); err != nil {
			return err
		}
	}
	cx0, _ = measure.ProcCPU(x.pid())
	cy0, _ = measure.ProcCPU(y.pid())
	if tx, ty, err = interleave(b.o.rounds, overwrite(x, "over-tether.go"), overwrite(y, "over-peer.go")); err != nil {
		return err
	}
	cx1, _ = measure.ProcCPU(x.pid())
	cy1, _ = measure.ProcCPU(y.pid())
	b.add(row{"write_file overwriting a 1 MiB file (2 payloads alternated, 1 request), median", measure.Ms(measure.Median(tx)), measure.Ms(measure.Median(ty)) + " (against)", measure.Ratio(measure.Median(tx), measure.Median(ty)), "", ""})
	b.add(row{"  daemon CPU per call", measure.Ms((cx1 - cx0) / n), measure.Ms((cy1-cy0)/n) + " (against)", measure.Ratio(cx1-cx0, cy1-cy0), "", ""})
	return nil
}

// search times glob and grep on the tree through a running daemon,
// against ripgrep run directly, interleaved.
func (b *bench) search() error {
	fmt.Fprintln(os.Stderr, "search")
	t, err := b.startTether()
	if err != nil {
		return err
	}
	defer t.stop()
	rg := func(args ...string) (time.Duration, error) {
		cmd := exec.Command(b.o.rg, args...)
		cmd.Dir = b.tree
		t0 := time.Now()
		out, err := cmd.Output()
		took := time.Since(t0)
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 {
			err = nil // no match
		}
		if err == nil && len(out) == 0 {
			err = errors.New("rg found nothing")
		}
		return took, err
	}
	const glob = "*_test.go"
	var globLines int
	// The limits alternate by one, so no call repeats the last (three
	// identical calls in a row are refused by design).
	tg, rgg, err := interleave(b.o.rounds, func(i int) (time.Duration, error) {
		text, d, err := t.toolCall(map[string]any{"name": "glob", "arguments": map[string]any{"pattern": glob, "path": b.tree, "max_results": 5000 - i%2}, "requestId": "bench"})
		if strings.Contains(text, "stopped after") {
			err = errors.New("the glob stopped at its limit: pick a pattern with fewer files")
		}
		globLines = strings.Count(text, "\n")
		return d, err
	}, func(int) (time.Duration, error) {
		return rg("--files", "-g", glob)
	})
	if err != nil {
		return err
	}
	b.add(row{fmt.Sprintf("glob %s on the tree (%d paths) vs rg --files -g, median", glob, globLines), measure.Ms(measure.Median(tg)), measure.Ms(measure.Median(rgg)) + " (rg)",
		measure.Ratio(measure.Median(tg), measure.Median(rgg)), "≤ 1.1×", met(ratio(tg, rgg) <= 1.1)})

	// The same glob through `tether call`, a process of its own, against
	// rg started the same way: the command line's start-up included.
	tc, rgc, err := interleave(b.o.rounds, func(i int) (time.Duration, error) {
		cmd := exec.Command(b.o.tether, "call", "--workspace", b.tree, "--rg", b.o.rg, "glob", fmt.Sprintf(`{"pattern":%q,"max_results":%d}`, glob, 5000-i%2))
		cmd.Env = append(os.Environ(), b.env...)
		t0 := time.Now()
		out, err := cmd.Output()
		d := time.Since(t0)
		if err == nil && strings.Count(string(out), "\n") < globLines {
			err = fmt.Errorf("tether call glob printed %d lines, the daemon's glob %d", strings.Count(string(out), "\n"), globLines)
		}
		return d, err
	}, func(int) (time.Duration, error) {
		return rg("--files", "-g", glob)
	})
	if err != nil {
		return err
	}
	b.add(row{fmt.Sprintf("`tether call glob` %s vs rg --files -g, process start included, median", glob), measure.Ms(measure.Median(tc)), measure.Ms(measure.Median(rgc)) + " (rg)",
		measure.Ratio(measure.Median(tc), measure.Median(rgc)), "≤ 1.1×", met(ratio(tc, rgc) <= 1.1)})

	const pattern = `sync\.Mutex`
	tgr, rgr, err := interleave(b.o.rounds, func(i int) (time.Duration, error) {
		text, d, err := t.toolCall(map[string]any{"name": "grep", "arguments": map[string]any{"pattern": pattern, "path": b.tree, "max_matches": 2000 - i%2}, "requestId": "bench"})
		if strings.Contains(text, "stopped after") {
			err = errors.New("grep stopped at its limit")
		}
		return d, err
	}, func(int) (time.Duration, error) {
		return rg("-n", pattern)
	})
	if err != nil {
		return err
	}
	b.add(row{fmt.Sprintf("grep %s on the tree vs rg -n, median", pattern), measure.Ms(measure.Median(tgr)), measure.Ms(measure.Median(rgr)) + " (rg)",
		measure.Ratio(measure.Median(tgr), measure.Median(rgr)), "≤ 1.05×", met(ratio(tgr, rgr) <= 1.05)})
	return nil
}

// interleave runs n rounds of a and b, alternating which goes first, after
// a tenth more untimed rounds to warm up, and returns their timings.
func interleave(n int, a, b func(i int) (time.Duration, error)) (ta, tb []time.Duration, err error) {
	warm := max(n/10, 1)
	for i := range n + warm {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		d1, err := first(i)
		if err != nil {
			return nil, nil, err
		}
		d2, err := second(i)
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		if i >= warm {
			ta, tb = append(ta, d1), append(tb, d2)
		}
	}
	return ta, tb, nil
}

// errorRoundTrip makes a call that must be answered with an error.
func errorRoundTrip(s *server, method string) (time.Duration, error) {
	req, id, err := s.request(method, map[string]any{})
	if err != nil {
		return 0, err
	}
	reply, d, err := s.roundTrip(req, id)
	if err == nil && !json.Valid(reply) || !strings.Contains(string(reply), `"error"`) {
		err = fmt.Errorf("%s: no error reply to %s: %.200s", s.name, method, reply)
	}
	return d, err
}

func took(_ string, d time.Duration, err error) (time.Duration, error) { return d, err }

func ratio(a, b []time.Duration) float64 {
	return float64(measure.Median(a)) / float64(measure.Median(b))
}

func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func (b *bench) print(files int) {
	fmt.Printf("\nTether against its peers, side by side, interleaved (ratio: Tether's time over the peer's)\n")
	fmt.Printf("peers: @modelcontextprotocol/server-filesystem (Node %s) unless named; tree: the Go source tree, %d files\n\n", nodeVersion(b.o.node), files)
	fmt.Printf("| %-72s | %10s | %20s | %8s | %-24s | %-3s |\n", "workload", "Tether", "peer", "ratio", "target", "met")
	fmt.Printf("|%s|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 74), strings.Repeat("-", 12), strings.Repeat("-", 22), strings.Repeat("-", 10), strings.Repeat("-", 26), strings.Repeat("-", 5))
	for _, r := range b.rows {
		fmt.Printf("| %-72s | %10s | %20s | %8s | %-24s | %-3s |\n", r.what, r.tether, r.peer, r.ratio, r.target, r.met)
	}
	for _, n := range b.notes {
		fmt.Println("\n" + n)
	}
}

func nodeVersion(node string) string {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}
