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
	"strings"

	"github.com/tether-dev/tether/bench/internal/measure"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/web/convert"
	"github.com/tether-dev/tether/internal/web/webtest"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

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
	env := tool.NewEnv(tool.EnvConfig{Workspace: ws, Settings: tool.Settings{Mode: protocol.ModeBypass, Web: cfg}})
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

	cases := []*measure.Case{
		{Name: "GET 16 KB text, plain net/http", Batch: *batch, Run: func(int) error {
			resp, err := plain.Get(fresh("/text"))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, err = io.ReadAll(resp.Body)
			return err
		}},
		{Name: "web.Client.Fetch, same page", Base: "GET 16 KB text, plain net/http", Target: "< 1.5×", Batch: *batch, Run: func(int) error {
			t, err := client.Check(fresh("/text"))
			if err != nil {
				return err
			}
			_, err = client.Fetch(context.Background(), t, false)
			return err
		}},
		{Name: "web_fetch tool, same page", Base: "GET 16 KB text, plain net/http", Target: "< 1.5×", Batch: *batch, Run: func(int) error {
			return fetchTool(fresh("/text"))
		}},
		{Name: "200 KB article to Markdown", Target: "< 50 ms", Batch: 1, Run: func(int) error {
			_, err := convert.Markdown(context.Background(), article, pageURL)
			return err
		}},
		{Name: "web_fetch tool, 200 KB page from cache", Target: "< 1 ms", Batch: *batch, Run: func(int) error {
			return fetchTool(srv.URL + "/article")
		}},
	}
	// Three warm-up runs: connections, the article in the cache, the code paths.
	if err := measure.Rotate(cases, 3, *rounds); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("web tools, %d rounds, cases interleaved; per call: wall time (median, 90th percentile) and CPU time of this process, server included (median)\n\n", *rounds)
	measure.Table(cases)
	fmt.Printf("\nratio: the case's median over the plain GET's. The fetch cases run in batches of calls and report the time per call, so the CPU clock's tick does not blur them.\n")
}
