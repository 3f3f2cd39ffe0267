// Command mcp measures `tether mcp` side by side with the reference MCP
// filesystem server (npm @modelcontextprotocol/server-filesystem, Node),
// both driven over stdio by one minimal client (a JSON line out, a line
// back), on the same files in one run. Every measurement alternates
// between the two servers (and which goes first), so machine noise falls
// on both alike:
//
//   - start: from spawning the server to the answer of its first
//     tools/list (initialize and initialized included), a fresh process
//     each run;
//   - read: a 4 KiB text file (read_file / read_text_file);
//   - list: a folder of 200 entries (list_dir / list_directory);
//   - name search: files named reader.go or writer.go anywhere in the Go
//     source tree (glob / search_files, the same glob pattern);
//   - edit: one line of a 1 MiB file (edit_file / edit_file), each server
//     on its own copy, without approval prompts (tether --mode bypass);
//   - peak RSS of each server process (VmHWM) at the end of its session.
//
// Figures are medians (p50) of the timed calls; the targets are printed
// beside them, never asserted.
//
//	go run ./bench/mcp -tether BIN -peer 'node .../dist/index.js' [-runs 41]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/rpctest"
)

func main() {
	log.SetFlags(0)
	tether := flag.String("tether", "", "the tether binary")
	peer := flag.String("peer", "", "the command that starts the filesystem server, without its folders (e.g. 'node /x/dist/index.js')")
	goroot := flag.String("goroot", "", "Go source tree for the name search (default: $(go env GOROOT)/src)")
	runs := flag.Int("runs", 41, "timed calls per server for start, read, list and edit")
	searches := flag.Int("searches", 7, "timed name searches per server")
	flag.Parse()
	if *tether == "" || *peer == "" {
		log.Fatal("usage: mcp -tether BIN -peer 'node .../dist/index.js'")
	}
	if *goroot == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			log.Fatalf("go env GOROOT: %v", err)
		}
		*goroot = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	tmp, err := os.MkdirTemp("", "tether-mcp-bench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	corpus := filepath.Join(tmp, "corpus")
	if err := makeCorpus(corpus); err != nil {
		log.Fatal(err)
	}
	env := append(os.Environ(), measure.TetherEnv(tmp, "error")...)
	servers := []*server{
		{
			name: "tether",
			argv: []string{*tether, "mcp", "--mode", "bypass", "--workspace", corpus, "--workspace", *goroot},
			read: func(p string) (string, any) { return "read_file", map[string]any{"path": p} },
			list: func(p string) (string, any) { return "list_dir", map[string]any{"path": p} },
			find: func(dir, pat string) (string, any) {
				return "glob", map[string]any{"path": dir, "pattern": pat, "max_results": 5000}
			},
			edit: func(p, old, new string) (string, any) {
				return "edit_file", map[string]any{"path": p, "old_string": old, "new_string": new}
			},
			big: filepath.Join(corpus, "big-tether.txt"),
		},
		{
			name: "filesystem (node)",
			argv: append(strings.Fields(*peer), corpus, *goroot),
			read: func(p string) (string, any) { return "read_text_file", map[string]any{"path": p} },
			list: func(p string) (string, any) { return "list_directory", map[string]any{"path": p} },
			find: func(dir, pat string) (string, any) {
				return "search_files", map[string]any{"path": dir, "pattern": pat}
			},
			edit: func(p, old, new string) (string, any) {
				return "edit_file", map[string]any{"path": p, "edits": []map[string]any{{"oldText": old, "newText": new}}}
			},
			big: filepath.Join(corpus, "big-peer.txt"),
		},
	}
	for _, s := range servers {
		s.env = env
	}
	tw, pw := servers[0], servers[1]

	// Start: a fresh process per run.
	for i := 0; i < *runs; i++ {
		for _, s := range order(servers, i) {
			wall, cpu, err := s.startToList()
			if err != nil {
				log.Fatalf("%s: %v", s.name, err)
			}
			s.start = append(s.start, wall)
			s.startCPU = append(s.startCPU, cpu)
		}
	}

	// One long session each for the calls.
	for _, s := range servers {
		if err := s.open(); err != nil {
			log.Fatalf("%s: %v", s.name, err)
		}
		defer s.close()
	}
	// Tether edits only what was read: read the big file once, as a model
	// would before editing it.
	if _, err := tw.call("read_file", map[string]any{"path": tw.big, "limit": 1}); err != nil {
		log.Fatalf("tether: %v", err)
	}
	for i := 0; i < *runs+1; i++ { // the first round warms up, untimed
		for _, s := range order(servers, i) {
			name, args := s.read(filepath.Join(corpus, "read", fmt.Sprintf("r%d.txt", i%8)))
			s.time(&s.reads, &s.readsCPU, i > 0, name, args)
			name, args = s.list(filepath.Join(corpus, "list", fmt.Sprintf("d%d", i%2)))
			s.time(&s.lists, &s.listsCPU, i > 0, name, args)
			line := fmt.Sprintf("line %06d of", 100+i*97)
			name, args = s.edit(s.big, line, strings.ToUpper(line))
			s.time(&s.edits, &s.editsCPU, i > 0, name, args)
		}
	}
	counts := map[string][2]int{}
	for i := 0; i < *searches+1; i++ {
		pat := []string{"**/reader.go", "**/writer.go"}[i%2]
		for j, s := range order(servers, i) {
			name, args := s.find(*goroot, pat)
			out := s.time(&s.finds, &s.findsCPU, i > 0, name, args)
			c := counts[pat]
			c[indexOf(servers, s)] = countPaths(out)
			counts[pat] = c
			_ = j
		}
	}
	for _, s := range servers {
		s.rss = s.peakRSS()
	}

	// The report.
	spawn := spawnBaseline(*runs)
	fmt.Printf("MCP servers side by side, %s, %s/%s, %d CPUs, load average %s, tether %s, peer: %s\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadAverage(), tw.version, pw.version)
	fmt.Printf("name search corpus: %s; matches tether/peer: reader.go %d/%d, writer.go %d/%d\n",
		*goroot, counts["**/reader.go"][0], counts["**/reader.go"][1], counts["**/writer.go"][0], counts["**/writer.go"][1])
	fmt.Printf("spawning and reaping /bin/true takes %s (p50) on this machine now\n\n", ms(spawn))
	fmt.Printf("%-30s %22s %22s %16s   %s\n", "p50, wall | CPU", tw.name, pw.name, "peer/tether", "target")
	row := func(what string, tWall, tCPU, pWall, pCPU []time.Duration, target string, met func(t, p time.Duration) bool) {
		tw, tc, pw, pc := measure.Median(tWall), measure.Median(tCPU), measure.Median(pWall), measure.Median(pCPU)
		verdicts := ""
		if met != nil {
			verdicts = fmt.Sprintf("%s: wall %s, CPU %s", target, verdict(met(tw, pw)), verdict(met(tc, pc)))
		}
		fmt.Printf("%-30s %22s %22s %7.1fx |%5.1fx   %s\n", what, pair(tw, tc), pair(pw, pc), ratio(pw, tw), ratio(pc, tc), verdicts)
	}
	row("start to first tools/list", tw.start, tw.startCPU, pw.start, pw.startCPU, "tether < 20 ms",
		func(t, _ time.Duration) bool { return t < 20*time.Millisecond })
	row("read 4 KiB", tw.reads, tw.readsCPU, pw.reads, pw.readsCPU, ">= 4x", func(t, p time.Duration) bool { return p >= 4*t })
	row("list 200 entries", tw.lists, tw.listsCPU, pw.lists, pw.listsCPU, "", nil)
	row("name search, Go source tree", tw.finds, tw.findsCPU, pw.finds, pw.findsCPU, ">= 20x", func(t, p time.Duration) bool { return p >= 20*t })
	row("edit one line of 1 MiB", tw.edits, tw.editsCPU, pw.edits, pw.editsCPU, "", nil)
	fmt.Printf("%-30s %22s %22s %7.1fx          tether < 1/5 of peer: %s\n", "peak RSS", measure.MiB(tw.rss), measure.MiB(pw.rss),
		float64(pw.rss)/float64(tw.rss), verdict(tw.rss*5 < pw.rss))
	fmt.Printf("\n(%d start runs and %d timed calls per measure and server, %d name searches; interleaved.\n"+
		" CPU: the server process's own, all threads, plus the processes it ran; for start, the whole short-lived process.)\n", *runs, *runs, *searches)
}

// server is one MCP server under test.
type server struct {
	name string
	argv []string
	env  []string
	read func(path string) (string, any)
	list func(path string) (string, any)
	find func(dir, pattern string) (string, any)
	edit func(path, old, new string) (string, any)
	big  string

	conn    *rawClient
	version string

	// Wall time and the server's CPU time (all its threads, and the
	// processes it waited for) of each timed run or call.
	start, reads, lists, finds, edits                []time.Duration
	startCPU, readsCPU, listsCPU, findsCPU, editsCPU []time.Duration
	rss                                              int // KiB
}

// startToList times a fresh server from its spawn to the answer of its
// first tools/list (initialize and initialized before it); cpu is the CPU
// time of the whole short-lived process, which exits when its stdin
// closes.
func (s *server) startToList() (wall, cpu time.Duration, err error) {
	began := time.Now()
	c, err := startRaw(s.argv, s.env)
	if err != nil {
		return 0, 0, err
	}
	defer c.close()
	if err := c.handshake(); err != nil {
		return 0, 0, err
	}
	line, err := c.request("tools/list", struct{}{})
	wall = time.Since(began)
	if err != nil {
		return 0, 0, err
	}
	var res struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	if err := json.Unmarshal(line, &res); err != nil || len(res.Result.Tools) == 0 {
		return 0, 0, fmt.Errorf("tools/list: no tools in %.200s (%v)", line, err)
	}
	s.version = c.server
	if err := c.close(); err != nil {
		return 0, 0, fmt.Errorf("the server did not exit cleanly: %v", err)
	}
	return wall, measure.ExitedCPU(c.cmd.ProcessState), nil
}

// cpuNow is the CPU time the running server has used: every thread's time
// on a CPU (from schedstat, in nanoseconds) plus the processes it has
// waited for (ripgrep, commands), in clock ticks.
func (s *server) cpuNow() time.Duration {
	pid := s.conn.cmd.Process.Pid
	var total time.Duration
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(ns)
		}
	}
	if waited, err := measure.ProcChildrenCPU(pid); err == nil {
		total += waited
	}
	return total
}

func (s *server) open() error {
	c, err := startRaw(s.argv, s.env)
	if err != nil {
		return err
	}
	if err := c.handshake(); err != nil {
		c.close()
		return err
	}
	s.conn = c
	return nil
}

func (s *server) close() { s.conn.close() }

// call runs a tool; a result with isError is an error here.
func (s *server) call(name string, args any) (string, error) {
	line, err := s.conn.request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", err
	}
	return toolText(name, line)
}

func toolText(name string, line []byte) (string, error) {
	var res struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(line, &res); err != nil {
		return "", fmt.Errorf("%s: the answer is not JSON: %v", name, err)
	}
	if res.Error != nil {
		return "", fmt.Errorf("%s: %s", name, res.Error.Message)
	}
	var b strings.Builder
	for _, c := range res.Result.Content {
		b.WriteString(c.Text)
	}
	if res.Result.IsError {
		return "", fmt.Errorf("%s failed: %s", name, b.String())
	}
	return b.String(), nil
}

// time makes one call, recording its wall and CPU time when timed; a
// failed call ends the benchmark: a fast error measures nothing.
func (s *server) time(wall, cpu *[]time.Duration, timed bool, name string, args any) string {
	c0 := s.cpuNow()
	began := time.Now()
	line, err := s.conn.request("tools/call", map[string]any{"name": name, "arguments": args})
	took := time.Since(began)
	c1 := s.cpuNow()
	if err != nil {
		log.Fatalf("%s: %v", s.name, err)
	}
	out, err := toolText(name, line)
	if err != nil {
		log.Fatalf("%s: %v", s.name, err)
	}
	if timed {
		*wall = append(*wall, took)
		*cpu = append(*cpu, c1-c0)
	}
	return out
}

// peakRSS is the server process's high-water resident set in KiB; 0 where
// it cannot be read.
func (s *server) peakRSS() int {
	kib, _ := rpctest.ProcKiB(s.conn.cmd.Process.Pid, "VmHWM")
	return kib
}

// order alternates which server goes first.
func order(s []*server, i int) []*server {
	if i%2 == 0 {
		return s
	}
	return []*server{s[1], s[0]}
}

func indexOf(s []*server, x *server) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

// countPaths counts the lines of a search answer that name a .go file.
func countPaths(out string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), ".go") {
			n++
		}
	}
	return n
}

// makeCorpus writes the files both servers work on: eight 4 KiB files to
// read, two folders of 200 entries, and a 1 MiB file for each server.
func makeCorpus(dir string) error {
	line := "the quick brown fox jumps over the lazy dog, again and again\n"
	for i := 0; i < 8; i++ {
		var b strings.Builder
		for b.Len()+len(line) <= 4096 {
			b.WriteString(line)
		}
		for b.Len() < 4096 {
			b.WriteByte('.')
		}
		if err := write(filepath.Join(dir, "read", fmt.Sprintf("r%d.txt", i)), b.String()); err != nil {
			return err
		}
	}
	for d := 0; d < 2; d++ {
		for i := 0; i < 200; i++ {
			name := fmt.Sprintf("entry-%03d.txt", i)
			if i%10 == 0 {
				name = fmt.Sprintf("folder-%03d/x.txt", i)
			}
			if err := write(filepath.Join(dir, "list", fmt.Sprintf("d%d", d), name), "x\n"); err != nil {
				return err
			}
		}
	}
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "line %06d of the benchmark file, with some text to fill it up a bit more\n", i)
	}
	for _, name := range []string{"big-tether.txt", "big-peer.txt"} {
		if err := write(filepath.Join(dir, name), b.String()); err != nil {
			return err
		}
	}
	return nil
}

func write(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func pair(wall, cpu time.Duration) string {
	f := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
	}
	return f(wall) + " | " + f(cpu) + " ms"
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// spawnBaseline is what starting any process costs on this machine now.
func spawnBaseline(runs int) time.Duration {
	var d []time.Duration
	for i := 0; i < runs; i++ {
		began := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			return 0
		}
		d = append(d, time.Since(began))
	}
	return measure.Median(d)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func verdict(met bool) string {
	if met {
		return "(met)"
	}
	return "(MISSED)"
}

// rawClient speaks MCP over a server's stdin and stdout with as little
// work of its own as it can: one JSON line out, one line back. The SDK's
// client would add the same cost to both servers' figures and shrink their
// ratio.
type rawClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	id     int
	server string
	closed bool
}

func startRaw(argv, env []string) (*rawClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &rawClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// handshake is initialize and initialized, at protocol 2025-11-25, which
// both servers speak; the client declares no roots, so each serves the
// folders it was started with.
func (c *rawClient) handshake() error {
	line, err := c.request("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "tether-bench", "version": "1"},
	})
	if err != nil {
		return err
	}
	var res struct {
		Result struct {
			ServerInfo struct{ Name, Version string }
		}
	}
	if err := json.Unmarshal(line, &res); err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	c.server = res.Result.ServerInfo.Name + " " + res.Result.ServerInfo.Version
	return c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func (c *rawClient) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}

// request sends a request and returns the line that answers it; lines
// that answer nothing (notifications, log messages) are skipped.
func (c *rawClient) request(method string, params any) ([]byte, error) {
	c.id++
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	want := strconv.Itoa(c.id)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %v", method, err)
		}
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &head) == nil && head.Method == "" && string(head.ID) == want {
			return line, nil
		}
	}
}

// close closes the server's stdin and waits for it to exit.
func (c *rawClient) close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
		return fmt.Errorf("it did not exit within 20 s of its stdin closing")
	}
}
