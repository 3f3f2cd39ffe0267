// Command web measures the web tools and prints a table:
//
//   - fetch overhead: a 16 KB text page from a local server, fetched with a
//     plain net/http GET (the baseline: keep-alive client, body read whole),
//     with web.Client.Fetch (URL checks, the dial-time guard, the redirect
//     walker, the body cap, charset decoding, the cache write), and with the
//     web_fetch tool through the registry as the daemon calls it (bypass
//     mode, so no approval; argument checks, paging, the result's text).
//     Every call names a fresh URL, so none is served from the cache.
//     Target: under 1.5x the plain GET.
//   - a 200 KB article page converted to Markdown (parse, readability,
//     Markdown). Target: under 50 ms.
//   - a page served again from the cache by the web_fetch tool (the 200 KB
//     article, its first part as large as the default budget allows).
//     Target: under 1 ms.
//
// The cases run in turn, round after round, each a batch of calls, so
// machine noise falls on all of them alike; each figure is the median of
// the rounds, per call. Nothing is asserted.
//
//	go run ./bench/web [-rounds 60] [-batch 20]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/web/convert"
	"github.com/tether-dev/tether/internal/web/webtest"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

type benchCase struct {
	name   string
	base   string // the case it is compared with; empty for none
	target string
	batch  int
	run    func(i int) error
	times  []time.Duration // per call
	cpu    []time.Duration // per call
}

func main() {
	log.SetFlags(0)
	rounds := flag.Int("rounds", 60, "timed rounds (each runs every case once, as a batch)")
	batch := flag.Int("batch", 20, "calls per batch for the fetch cases")
	flag.Parse()

	text := strings.Repeat("A line of plain text, sixty-four bytes long, for the benchmark.\n", 256)
	article := webtest.Article(200 << 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/article" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, article)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, text)
	}))
	defer srv.Close()

	plain := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	cfg, err := web.NewConfig(web.Settings{PrivateHosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	client := web.New(cfg)
	defer client.Close()

	dir, err := os.MkdirTemp("", "webbench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ws, err := workspace.New(dir)
	if err != nil {
		log.Fatal(err)
	}
	env := &tool.Env{Workspace: ws, Settings: tool.Settings{Mode: protocol.ModeBypass, Web: cfg}, Requests: tool.NewRequests()}
	defer env.Web().Close()
	reg := tools.Builtin()
	fetchTool := func(u string) error {
		args, _ := json.Marshal(map[string]string{"url": u})
		// A fresh session per call: the repeat guard refuses a third
		// identical call in one.
		r := reg.Invoke(context.Background(), &tool.Call{Name: "web_fetch", Args: args, RequestID: "bench", Budget: tool.NewBudget(0, 0), Session: tool.NewSession(), Env: env})
		if r.IsError {
			return fmt.Errorf("web_fetch %s: %s", u, r.Content)
		}
		return nil
	}
	seq := 0
	fresh := func(path string) string {
		seq++
		return fmt.Sprintf("%s%s?n=%d", srv.URL, path, seq)
	}
	pageURL, _ := url.Parse(srv.URL + "/article")

	cases := []*benchCase{
		{name: "GET 16 KB text, plain net/http", batch: *batch, run: func(int) error {
			resp, err := plain.Get(fresh("/text"))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, err = io.ReadAll(resp.Body)
			return err
		}},
		{name: "web.Client.Fetch, same page", base: "GET 16 KB text, plain net/http", target: "< 1.5x", batch: *batch, run: func(int) error {
			t, err := client.Check(fresh("/text"))
			if err != nil {
				return err
			}
			_, err = client.Fetch(context.Background(), t, false)
			return err
		}},
		{name: "web_fetch tool, same page", base: "GET 16 KB text, plain net/http", target: "< 1.5x", batch: *batch, run: func(int) error {
			return fetchTool(fresh("/text"))
		}},
		{name: "200 KB article to Markdown", target: "< 50 ms", batch: 1, run: func(int) error {
			_, err := convert.Markdown(context.Background(), article, pageURL)
			return err
		}},
		{name: "web_fetch tool, 200 KB page from cache", target: "< 1 ms", batch: *batch, run: func(int) error {
			return fetchTool(srv.URL + "/article")
		}},
	}
	// Warm up: connections, the article in the cache, the code paths.
	for _, c := range cases {
		for i := 0; i < 3; i++ {
			if err := c.run(i); err != nil {
				log.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	for r := 0; r < *rounds; r++ {
		for i := range cases {
			c := cases[(i+r)%len(cases)]
			start, startCPU := time.Now(), cpuTime()
			for k := 0; k < c.batch; k++ {
				if err := c.run(k); err != nil {
					log.Fatalf("%s: %v", c.name, err)
				}
			}
			n := time.Duration(c.batch)
			c.times = append(c.times, time.Since(start)/n)
			c.cpu = append(c.cpu, (cpuTime()-startCPU)/n)
		}
	}
	report(cases, *rounds)
}

func report(cases []*benchCase, rounds int) {
	medians := map[string][2]time.Duration{}
	fmt.Printf("web tools, %d rounds, cases interleaved; per call: wall time (median, 90th percentile) and CPU time of this process, server included (median)\n\n", rounds)
	fmt.Printf("%-40s %10s %10s %8s %10s %8s  %s\n", "case", "wall", "wall p90", "ratio", "cpu", "ratio", "target")
	for _, c := range cases {
		slices.Sort(c.times)
		slices.Sort(c.cpu)
		m := [2]time.Duration{c.times[len(c.times)/2], c.cpu[len(c.cpu)/2]}
		p90 := c.times[len(c.times)*9/10]
		medians[c.name] = m
		wallRatio, cpuRatio := "", ""
		if b, ok := medians[c.base]; ok {
			wallRatio = fmt.Sprintf("%.2fx", float64(m[0])/float64(b[0]))
			if b[1] > 0 {
				cpuRatio = fmt.Sprintf("%.2fx", float64(m[1])/float64(b[1]))
			}
		}
		fmt.Printf("%-40s %10s %10s %8s %10s %8s  %s\n", c.name, round(m[0]), round(p90), wallRatio, round(m[1]), cpuRatio, c.target)
	}
	fmt.Printf("\nratio: the case's median over the plain GET's. The fetch cases run in batches of calls and report the time per call, so the CPU clock's tick does not blur them.\n")
}

func round(d time.Duration) string {
	return d.Round(time.Microsecond).String()
}
