package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// web_fetch runs headless under the same rules: the guard, the approval
// (asked on the terminal, or refused without one), the --web-* settings.
func TestCallWebFetch(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("served locally"))
	}))
	defer srv.Close()
	dir, _ := workspaceWith(t, "a.txt", "x")
	fetch := func(path string) []string { return []string{"web_fetch", `{"url":"` + srv.URL + path + `"}`} }

	// The guard: a local server needs --web-private.
	r := runCallIn(t, dir, noTerminal(), "", append([]string{"--mode", "bypass"}, fetch("/1")...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "loopback") || hits.Load() != 0 {
		t.Fatalf("without --web-private: exit %d, hits %d, stderr:\n%s", r.code, hits.Load(), r.stderr)
	}
	// The approval: asked on the terminal, showing the URL and the host.
	tm := typing("y\n")
	r = runCallIn(t, dir, tm, "", append([]string{"--web-private", "127.0.0.1"}, fetch("/2")...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "served locally") {
		t.Fatalf("approved: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "url: "+srv.URL+"/2\nhost: 127.0.0.1") {
		t.Errorf("the prompt does not show the URL and host:\n%s", r.stderr)
	}
	// Nobody to ask: refused.
	r = runCallIn(t, dir, noTerminal(), "", append([]string{"--web-private", "127.0.0.1"}, fetch("/3")...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("no terminal: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// An allowed host asks nothing.
	r = runCallIn(t, dir, noTerminal(), "", append([]string{"--web-private", "127.0.0.1", "--web-allow", "127.0.0.1"}, fetch("/4")...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "served locally") {
		t.Fatalf("allowed host: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if hits.Load() != 2 {
		t.Errorf("the server was reached %d times, want 2", hits.Load())
	}
	// A malformed setting is a usage error naming the flag.
	r = runCallIn(t, dir, noTerminal(), "", append([]string{"--web-allow", "*.co.uk"}, fetch("/5")...)...)
	if r.code != 2 || !strings.Contains(r.stderr, `--web-allow: "*.co.uk" is a wildcard over the public suffix co.uk`) {
		t.Fatalf("bad --web-allow: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
