package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// needRg makes a search test fail, not skip, without ripgrep: a skipped
// test would hide that the search tools went untested.
func needRg(t *testing.T, h *harness) {
	t.Helper()
	if h.env.Settings.RgPath == "" {
		t.Fatal("ripgrep (rg) is not on PATH: install it (Debian package ripgrep; the project's test script does) to run the search tool tests")
	}
}

// searchProject fills the harness workspace (not a git checkout) with the
// cases the search tools must get right.
func searchProject(t *testing.T) *harness {
	h := newHarness(t)
	needRg(t, h)
	for rel, content := range map[string]string{
		".gitignore":               "node_modules/\n*.log\n",
		"main.go":                  "package main\n\nfunc main() {\n\tprintln(\"Needle\")\n}\n",
		"lib/util.go":              "package lib\n\n// needle in a comment\nfunc Util() {}\n",
		"lib/deep/er/x.go":         "package er // needle\n",
		"docs/guide.md":            "find the needle here\n",
		".github/workflows/ci.yml": "run: needle\n",
		".git/config":              "needle\n",
		"node_modules/pkg/i.js":    "needle\n",
		"app.log":                  "needle\n",
	} {
		h.write(rel, content)
	}
	return h
}

func splitOutput(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func TestSearchToolSchemas(t *testing.T) {
	reg := Builtin()
	for name, want := range map[string][]string{
		"list_dir": {"path"},
		"glob":     {"max_results", "path", "pattern"},
		"grep":     {"after_context", "before_context", "case_insensitive", "context_lines", "glob", "max_matches", "multiline", "offset", "output_mode", "path", "pattern"},
	} {
		tool, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		info := tool.Info(nil)
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(info.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		var got []string
		for p := range schema.Properties {
			got = append(got, p)
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s arguments %v, want %v", name, got, want)
		}
		if !info.ReadOnly || info.Risk != protocol.RiskLow || info.Permission != "auto" {
			t.Errorf("%s: readOnly=%v risk=%v permission=%q", name, info.ReadOnly, info.Risk, info.Permission)
		}
	}
}

func TestGrepFindsMatches(t *testing.T) {
	h := searchProject(t)
	got := h.ok("grep", map[string]any{"pattern": "needle"})
	want := ".github/workflows/ci.yml:1:run: needle\ndocs/guide.md:1:find the needle here\nlib/deep/er/x.go:1:package er // needle\nlib/util.go:3:// needle in a comment\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGrepHonoursGitignoreWithoutGit(t *testing.T) {
	h := searchProject(t)
	got := h.ok("grep", map[string]any{"pattern": "needle", "glob": "*.{js,log}"})
	if !strings.HasPrefix(got, "No matches") {
		t.Fatalf("ignored files were searched: %q", got)
	}
	// Naming the ignored folder searches it.
	got = h.ok("grep", map[string]any{"pattern": "needle", "path": "node_modules"})
	if got != "node_modules/pkg/i.js:1:needle\n" {
		t.Fatalf("got %q", got)
	}
}

func TestGrepSearchesHiddenFilesButNeverGit(t *testing.T) {
	h := searchProject(t)
	got := h.ok("grep", map[string]any{"pattern": "needle", "glob": "**"})
	if !strings.Contains(got, ".github/workflows/ci.yml:1:") {
		t.Errorf("hidden file not searched: %q", got)
	}
	if strings.Contains(got, ".git/") {
		t.Errorf(".git searched: %q", got)
	}
}

func TestGrepGlobAndPath(t *testing.T) {
	h := searchProject(t)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "needle", "glob": "*.go"}, "lib/deep/er/x.go:1:package er // needle\nlib/util.go:3:// needle in a comment\n"},
		{map[string]any{"pattern": "needle", "glob": "!*.go"}, ".github/workflows/ci.yml:1:run: needle\ndocs/guide.md:1:find the needle here\n"},
		{map[string]any{"pattern": "needle", "path": "lib", "glob": "*.go"}, "lib/deep/er/x.go:1:package er // needle\nlib/util.go:3:// needle in a comment\n"},
		{map[string]any{"pattern": "needle", "path": "lib", "glob": "deep/**/*.go"}, "lib/deep/er/x.go:1:package er // needle\n"},
		{map[string]any{"pattern": "needle", "path": "lib/util.go"}, "lib/util.go:3:// needle in a comment\n"},
	} {
		if got := h.ok("grep", tc.args); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestGrepCaseInsensitive(t *testing.T) {
	h := searchProject(t)
	if got := h.ok("grep", map[string]any{"pattern": "needle", "path": "main.go"}); !strings.HasPrefix(got, "No matches") {
		t.Errorf("case-sensitive search matched Needle: %q", got)
	}
	if got := h.ok("grep", map[string]any{"pattern": "needle", "path": "main.go", "case_insensitive": true}); got != "main.go:4:\tprintln(\"Needle\")\n" {
		t.Errorf("got %q", got)
	}
}

func TestGrepContextLines(t *testing.T) {
	h := searchProject(t)
	got := h.ok("grep", map[string]any{"pattern": "needle", "path": "lib", "context_lines": 1})
	want := "lib/deep/er/x.go:1:package er // needle\n--\nlib/util.go-2-\nlib/util.go:3:// needle in a comment\nlib/util.go-4-func Util() {}\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGrepStopsAtMaxMatches(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	var sb strings.Builder
	for i := range 50 {
		fmt.Fprintf(&sb, "hit %d\n", i)
	}
	h.write("many.txt", sb.String())
	got := h.ok("grep", map[string]any{"pattern": "hit", "max_matches": 10})
	l := splitOutput(got)
	if len(l) != 11 || l[9] != "many.txt:10:hit 9" || !strings.Contains(l[10], "lines 1-10 of 50 (max_matches=10); continue with offset=10") {
		t.Fatalf("got %q", got)
	}
	// Context lines count toward the limit.
	got = h.ok("grep", map[string]any{"pattern": "hit 1$", "context_lines": 2, "max_matches": 3})
	if l := splitOutput(got); len(l) != 4 || l[1] != "many.txt:2:hit 1" || !strings.Contains(l[3], "lines 1-3 of 4 (max_matches=3)") {
		t.Fatalf("got %q", got)
	}
	// Exactly the limit is not truncation.
	if got := h.ok("grep", map[string]any{"pattern": "hit 4$", "max_matches": 1}); got != "many.txt:5:hit 4\n" {
		t.Fatalf("got %q", got)
	}
}

// numbered writes a file whose line n reads "hit n".
func numbered(h *harness, rel string, n int) {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "hit %d\n", i)
	}
	h.write(rel, sb.String())
}

func TestGrepBeforeAndAfterContext(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	numbered(h, "n.txt", 20)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"before_context": 2}, "n.txt-3-hit 3\nn.txt-4-hit 4\nn.txt:5:hit 5\n"},
		{map[string]any{"after_context": 1}, "n.txt:5:hit 5\nn.txt-6-hit 6\n"},
		// One side given overrides context_lines on that side only.
		{map[string]any{"context_lines": 1, "after_context": 3}, "n.txt-4-hit 4\nn.txt:5:hit 5\nn.txt-6-hit 6\nn.txt-7-hit 7\nn.txt-8-hit 8\n"},
		{map[string]any{"context_lines": 2, "before_context": 0}, "n.txt:5:hit 5\nn.txt-6-hit 6\nn.txt-7-hit 7\n"},
	} {
		tc.args["pattern"] = "hit 5$"
		if got := h.ok("grep", tc.args); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestGrepOutputModes(t *testing.T) {
	h := searchProject(t)
	h.write("lib/two.go", "needle\nneedle again\nno\n")
	for _, tc := range []struct {
		mode, want string
	}{
		{"files_with_matches", ".github/workflows/ci.yml\ndocs/guide.md\nlib/deep/er/x.go\nlib/two.go\nlib/util.go\n"},
		{"count", ".github/workflows/ci.yml:1\ndocs/guide.md:1\nlib/deep/er/x.go:1\nlib/two.go:2\nlib/util.go:1\n[6 matching lines in 5 files]\n"},
		{"content", ".github/workflows/ci.yml:1:run: needle\ndocs/guide.md:1:find the needle here\nlib/deep/er/x.go:1:package er // needle\nlib/two.go:1:needle\nlib/two.go:2:needle again\nlib/util.go:3:// needle in a comment\n"},
	} {
		if got := h.ok("grep", map[string]any{"pattern": "needle", "output_mode": tc.mode}); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.mode, got, tc.want)
		}
	}
	if msg := h.fail("grep", map[string]any{"pattern": "x", "output_mode": "lines"}); !strings.Contains(msg, "output_mode") {
		t.Errorf("unknown mode: %s", msg)
	}
	// A cut list of files says how many there are and where to go on.
	got := h.ok("grep", map[string]any{"pattern": "needle", "output_mode": "files_with_matches", "max_matches": 2})
	if l := splitOutput(got); len(l) != 3 || l[0] != ".github/workflows/ci.yml" || l[1] != "docs/guide.md" || !strings.Contains(l[2], "files 1-2 of 5") || !strings.Contains(l[2], "offset=2") {
		t.Errorf("got %q", got)
	}
}

// Paging with offset walks the sorted list in steps: the pages joined are
// the whole answer, each line once, whatever order ripgrep found the files in.
func TestGrepOffsetPages(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	for i := range 12 {
		numbered(h, fmt.Sprintf("d%02d/f.txt", i), 3)
	}
	whole := h.ok("grep", map[string]any{"pattern": "hit", "max_matches": 2000})
	if n := len(splitOutput(whole)); n != 36 {
		t.Fatalf("%d lines: %q", n, whole)
	}
	for _, mode := range []map[string]any{{}, {"context_lines": 1}} {
		var joined []string
		for offset := 0; ; offset += 5 {
			args := map[string]any{"pattern": "hit [13]$", "max_matches": 5, "offset": offset}
			for k, v := range mode {
				args[k] = v
			}
			got := splitOutput(h.ok("grep", args))
			note := got[len(got)-1]
			if strings.HasPrefix(note, "[") {
				got = got[:len(got)-1]
			}
			joined = append(joined, got...)
			if !strings.Contains(note, fmt.Sprintf("offset=%d", offset+5)) {
				break
			}
		}
		want := 24
		if mode["context_lines"] != nil {
			want = 36
		}
		var lines []string
		for _, l := range joined {
			if l != "--" {
				lines = append(lines, l)
			}
		}
		if len(lines) != want || !slices.IsSortedFunc(lines, func(a, b string) int { return strings.Compare(a[:3], b[:3]) }) {
			t.Fatalf("%v: pages joined give %d lines, want %d:\n%s", mode, len(lines), want, strings.Join(joined, "\n"))
		}
	}
	if msg := h.fail("grep", map[string]any{"pattern": "hit", "offset": 100}); !strings.Contains(msg, "offset 100 is past the end") || !strings.Contains(msg, "36") {
		t.Errorf("offset past the end: %s", msg)
	}
}

// The limit keeps the first files in path order, not those ripgrep's
// threads finished first.
func TestGrepCutsInPathOrder(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	for i := range 30 {
		h.write(fmt.Sprintf("f%02d.txt", i), "hit\n")
	}
	for range 5 {
		h.sess = tool.NewSession()
		got := splitOutput(h.ok("grep", map[string]any{"pattern": "hit", "max_matches": 3}))
		if len(got) != 4 || got[0] != "f00.txt:1:hit" || got[2] != "f02.txt:1:hit" || !strings.Contains(got[3], "lines 1-3 of 30") {
			t.Fatalf("got %q", got)
		}
	}
}

func TestGrepMultiline(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	h.write("m.go", "call(a,\n  b)\nother\n")
	if got := h.ok("grep", map[string]any{"pattern": `call\(a,.*b\)`}); !strings.HasPrefix(got, "No matches") {
		t.Fatalf("a match across lines without multiline: %q", got)
	}
	if got := h.ok("grep", map[string]any{"pattern": `call\(a,.*b\)`, "multiline": true}); got != "m.go:1:call(a,\nm.go:2:  b)\n" {
		t.Fatalf("got %q", got)
	}
}

func TestGrepStopsAtOutputBudget(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "a fairly long line of text number %d with the word hit in it\n", i)
	}
	h.write("big.txt", sb.String())
	budget := tool.Budget{Tokens: 600}
	r := h.reg.Invoke(context.Background(), &tool.Call{Name: "grep", Args: []byte(`{"pattern":"hit","max_matches":2000}`), Budget: budget, Session: h.sess, Env: h.env})
	if r.IsError || len(r.Content) > budget.OutputChars() {
		t.Fatalf("error=%v, %d bytes for a budget of %d", r.IsError, len(r.Content), budget.OutputChars())
	}
	if !strings.Contains(r.Content, "the output budget is full") || strings.Contains(r.Content, "omitted") {
		t.Fatalf("got %q", r.Content)
	}
}

func TestGrepCutsLongLines(t *testing.T) {
	h := newHarness(t)
	needRg(t, h)
	h.write("app.min.js", strings.Repeat("var a=1;", 100000)+"needle\n")
	got := h.ok("grep", map[string]any{"pattern": "needle"})
	if len(got) > 1000 || !strings.HasPrefix(got, "app.min.js:1:var a=1;") || !strings.Contains(got, "omitted") {
		t.Fatalf("%d bytes: %.300q", len(got), got)
	}
}

func TestGrepBadRegex(t *testing.T) {
	h := searchProject(t)
	msg := h.fail("grep", map[string]any{"pattern": "func("})
	for _, want := range []string{"regex parse error", "unclosed group", "escape", "Rust regular expression"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
}

func TestGrepNoMatches(t *testing.T) {
	h := searchProject(t)
	got := h.ok("grep", map[string]any{"pattern": "haystack", "path": "lib"})
	if got != `No matches for "haystack" in lib.` {
		t.Fatalf("got %q", got)
	}
	got = h.ok("grep", map[string]any{"pattern": "needle", "glob": "*.rs"})
	if got != `No matches for "needle" in the workspace folder (files matching *.rs).` {
		t.Fatalf("got %q", got)
	}
}

func TestGrepBadArguments(t *testing.T) {
	h := searchProject(t)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": ""}, "pattern"},
		{map[string]any{"pattern": "x", "path": "nope"}, "nope does not exist"},
		{map[string]any{"pattern": "x", "glob": "*.{go"}, "invalid glob"},
		{map[string]any{"pattern": "x", "max_matches": 0}, "max_matches"},
		{map[string]any{"pattern": "x", "max_matches": 5000}, "max_matches"},
		{map[string]any{"pattern": "x", "context_lines": 100}, "context_lines"},
	} {
		if msg := h.fail("grep", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %s (want %q)", tc.args, msg, tc.want)
		}
	}
}

func TestSearchWithoutRipgrep(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "x\n")
	for _, rg := range []string{"", filepath.Join(t.TempDir(), "no-such-rg")} {
		h.env.Settings.RgPath = rg
		for _, call := range []struct {
			name string
			args map[string]any
		}{
			{"grep", map[string]any{"pattern": "x"}},
			{"glob", map[string]any{"pattern": "*"}},
		} {
			msg := h.fail(call.name, call.args)
			if !strings.Contains(msg, "ripgrep (rg)") || !strings.Contains(msg, "install") {
				t.Errorf("rg=%q %s: %s", rg, call.name, msg)
			}
			if strings.Contains(msg, "shell") {
				t.Errorf("rg=%q %s suggests a shell: %s", rg, call.name, msg)
			}
		}
		if got := h.ok("list_dir", map[string]any{}); got != "a.txt\n" {
			t.Errorf("list_dir without ripgrep: %q", got)
		}
		if got := h.ok("read_file", map[string]any{"path": "a.txt"}); got != "1\tx\n" {
			t.Errorf("read_file without ripgrep: %q", got)
		}
	}
}

func TestSearchOutsideWorkspaceAsks(t *testing.T) {
	h := searchProject(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "o.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"grep", map[string]any{"pattern": "needle", "path": outside}, filepath.Join(outside, "o.txt") + ":1:needle\n"},
		{"glob", map[string]any{"pattern": "*.txt", "path": outside}, filepath.Join(outside, "o.txt") + "\n"},
		{"list_dir", map[string]any{"path": outside}, "o.txt\n"},
	} {
		h.host.requests = nil
		h.host.answer = protocol.AnswerNo
		if msg := h.fail(call.name, call.args); !strings.Contains(msg, "declined") {
			t.Errorf("%s refused: %s", call.name, msg)
		}
		if len(h.host.requests) != 1 || h.host.requests[0].Kind != protocol.ApprovalOutside {
			t.Errorf("%s: requests %+v", call.name, h.host.requests)
		}
		h.host.answer = protocol.AnswerYes
		if got := h.ok(call.name, call.args); got != call.want {
			t.Errorf("%s approved: got %q, want %q", call.name, got, call.want)
		}
	}
	// Inside the workspace nobody is asked.
	h.host.requests = nil
	h.ok("grep", map[string]any{"pattern": "needle", "path": "lib"})
	if len(h.host.requests) != 0 {
		t.Errorf("asked for a search inside the workspace: %+v", h.host.requests)
	}
}

// fakeRg installs a shell script as the harness's ripgrep.
func fakeRg(t *testing.T, h *harness, body string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.env.Settings.RgPath = p
}

// readPid waits for a pid a fake ripgrep writes once it runs; the
// deadline only turns a hang into a failure.
func readPid(t *testing.T, file string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatalf("the fake rg never wrote %s", file)
	return 0
}

func TestGrepStopKillsRipgrep(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	fakeRg(t, h, `echo $$ > `+pidFile+`
while :; do printf '%s\0%s\n' a.txt 1:hit; done`)
	got := h.ok("grep", map[string]any{"pattern": "hit", "max_matches": 3})
	if !strings.HasPrefix(got, "a.txt:1:hit\na.txt:1:hit\na.txt:1:hit\n[lines 1-3 of at least 5000 (max_matches=3); continue with offset=3") {
		t.Fatalf("got %q", got)
	}
	if pid := readPid(t, pidFile); !rpctest.Reaped(pid) {
		t.Fatalf("ripgrep (pid %d) is still there after grep stopped at max_matches", pid)
	}
}

func TestGlobStopKillsRipgrep(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := newHarness(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	fakeRg(t, h, `echo $$ > `+pidFile+`
while :; do printf 'x.go\0'; done`)
	got := h.ok("glob", map[string]any{"pattern": "*.go", "max_results": 2})
	if !strings.HasPrefix(got, "x.go\nx.go\n[the first 2 of over 200000 files walked in sorted order (max_results=2); more match.") {
		t.Fatalf("got %q", got)
	}
	if pid := readPid(t, pidFile); !rpctest.Reaped(pid) {
		t.Fatalf("ripgrep (pid %d) is still there after glob stopped at max_results", pid)
	}
}

func TestSearchCancelKillsRipgrep(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, call := range []struct{ name, args string }{
		{"grep", `{"pattern":"hit"}`},
		{"glob", `{"pattern":"*"}`},
	} {
		h := newHarness(t)
		pidFile := filepath.Join(t.TempDir(), "pid")
		fakeRg(t, h, `printf '%s\0%s\n' a.txt 1:hit
printf 'x.go\0'
echo $$ > `+pidFile+`
exec sleep 1000`)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan tool.Result)
		go func() {
			done <- h.reg.Invoke(ctx, &tool.Call{Name: call.name, Args: []byte(call.args), Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env})
		}()
		pid := readPid(t, pidFile)
		cancel()
		r := <-done
		if !r.IsError || !strings.Contains(r.Content, "cancelled") || strings.Contains(r.Content, "a.txt") || strings.Contains(r.Content, "x.go") {
			t.Errorf("%s: %+v, want a cancellation error with no partial output", call.name, r)
		}
		if !rpctest.Reaped(pid) {
			t.Errorf("%s: ripgrep (pid %d) is still there after cancel", call.name, pid)
		}
	}
}

// BenchmarkGrepGoroot searches the Go source tree through the registry
// and with ripgrep alone, same pattern and flags, so their ns/op compare
// directly; "broad" is a pattern matching nearly every file, cut at 100
// lines. bench/search/run.sh prints the same comparison as a table.
func BenchmarkGrepGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.New(filepath.Join(strings.TrimSpace(string(out)), "src"))
	if err != nil {
		b.Fatal(err)
	}
	rg, err := search.LookRg("")
	if err != nil {
		b.Fatal("ripgrep (rg) is not on PATH: install it (Debian package ripgrep)")
	}
	env := &tool.Env{Workspace: ws, Settings: tool.Settings{Mode: protocol.ModeDefault, RgPath: rg}}
	reg := Builtin()
	const pattern = `sync\.Mutex`
	const budget = 1 << 20
	call := func(b *testing.B, args string) {
		r := reg.Invoke(context.Background(), &tool.Call{Name: "grep", Args: []byte(args), Budget: tool.Budget{Tokens: budget}, Session: tool.NewSession(), Env: env})
		if r.IsError {
			b.Fatal(r.Content)
		}
	}
	b.Run("tool", func(b *testing.B) {
		for b.Loop() {
			call(b, `{"pattern":"sync\\.Mutex","max_matches":2000}`)
		}
	})
	b.Run("rg", func(b *testing.B) {
		args := search.GrepArgs(search.GrepQuery{Dir: ws.Primary(), Pattern: pattern, MaxColumns: grepColumns(tool.Budget{Tokens: budget}.OutputChars())})
		for b.Loop() {
			cmd := exec.Command(rg, args...)
			cmd.Dir = ws.Primary()
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("broad", func(b *testing.B) {
		for b.Loop() {
			call(b, `{"pattern":"func","max_matches":100}`)
		}
	})
}
