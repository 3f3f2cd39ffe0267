package main

import (
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/compose"
	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/web/convert"
	"github.com/tether-dev/tether/internal/web/fetch"
)

// docSection is the text of a section of a page in docs/, from its
// heading to the next of its level, with the lines joined (they wrap
// anywhere).
func docSection(t *testing.T, page, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut("\n"+string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/%s has no section %q", page, heading)
	}
	level := heading[:strings.IndexByte(heading, ' ')+1]
	s, _, _ = strings.Cut(s, "\n"+level)
	return strings.Join(strings.Fields(s), " ")
}

// The guarantees' Message limits section states the daemon's bounds in
// words; this test holds each to the constant that enforces it.
func TestDocsStateTheDaemonLimitsInForce(t *testing.T) {
	limits := docSection(t, "guarantees.md", "## Message limits")
	mib := func(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }
	words := map[int]string{2: "twice", 3: "three times", 4: "four times", 5: "five times"}
	for _, want := range []string{
		"at most " + mib(daemon.MaxMessageBytes),
		"at most " + strconv.Itoa(daemon.MaxJSONDepth) + " deep",
		"at most " + thousands(daemon.MaxJSONValues) + " JSON values",
		"Up to " + words[daemon.ParkedPerSlot] + " as many",
		"(and " + mib(daemon.MaxParkedBytes) + " of them)",
		"At most " + mib(daemon.MaxQueuedOutput) + " of replies",
		"At most `maxCallsInFlight` calls run at once",
	} {
		if !strings.Contains(limits, want) {
			t.Errorf("docs/guarantees.md's Message limits section does not say %q", want)
		}
	}
}

// The guarantees' web and compose sections state their tools' limits in
// words; this test holds each to the constant that enforces it.
func TestDocsStateTheToolLimitsInForce(t *testing.T) {
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	mb := func(n int64) string { return itoa(n>>20) + " MB" }
	for heading, phrases := range map[string][]string{
		"## Web tools": {
			"URLs over " + thousands(fetch.MaxURLLength) + " characters",
			"at most " + itoa(fetch.MaxRedirects) + ", only within the same scheme",
			"(" + itoa(int64(web.CacheTTL/time.Minute)) + " minutes, " + mb(web.PageCacheBytes) + ")",
			itoa(int64(fetch.DefaultTimeout/time.Second)) + " s and " + mb(fetch.DefaultMaxBytes) + " per fetch",
			"at most " + mb(convert.MaxInput) + " of HTML",
		},
		"## Compose programs": {
			"source " + itoa(compose.DefaultSourceBytes>>10) + " KB, memory " + mb(compose.DefaultMemoryBytes) +
				", time " + itoa(int64(compose.DefaultTimeout/time.Second)) + " s, " + itoa(compose.DefaultMaxCalls) + " tool calls, " +
				itoa(compose.MaxConcurrentCalls) + " calls at once (the rest wait their turn), " + itoa(compose.MaxLogLines) + " log lines",
		},
	} {
		text := docSection(t, "guarantees.md", heading)
		for _, p := range phrases {
			if !strings.Contains(text, p) {
				t.Errorf("docs/guarantees.md's %q section does not say %q", heading, p)
			}
		}
	}
}

// The docs name the tests that hold Tether to its promises; each must
// exist, or the promise is held by nothing.
func TestDocsNameOnlyTestsThatExist(t *testing.T) {
	root := filepath.Join("..", "..")
	named := map[string][]string{} // test → pages naming it
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	testName := regexp.MustCompile("`(Test[A-Z][A-Za-z0-9_]*)`")
	for _, p := range pages {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testName.FindAllStringSubmatch(string(raw), -1) {
			named[m[1]] = append(named[m[1]], filepath.Base(p))
		}
	}
	if len(named) < 50 {
		t.Fatalf("the docs name %d tests; guarantees.md alone names more", len(named))
	}
	defined := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(`).FindAllStringSubmatch(string(raw), -1) {
			defined[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, where := range named {
		if !defined[name] {
			t.Errorf("%v name %s, which no test file defines", where, name)
		}
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// docs/cli.md names every flag of tether call and tether mcp, and no flag
// they do not have.
func TestCLIDocNamesEveryFlag(t *testing.T) {
	cio := cmdIO{stderr: io.Discard}
	flagName := regexp.MustCompile("`--([a-z][a-z-]*)")
	for heading, fs := range map[string]*flag.FlagSet{
		"## `tether call`": callFlags(&callOptions{}, cio),
		"## `tether mcp`":  mcpFlags(&mcpOptions{}, cio),
	} {
		text := docSection(t, "cli.md", heading)
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(text, "`--"+f.Name) {
				t.Errorf("docs/cli.md's %s section does not name --%s", heading, f.Name)
			}
		})
		for _, m := range flagName.FindAllStringSubmatch(text, -1) {
			if fs.Lookup(m[1]) == nil {
				t.Errorf("docs/cli.md's %s section names --%s, which it does not take", heading, m[1])
			}
		}
	}
}

// docs/cli.md's table of commands names every command, and only those.
func TestCLIDocNamesEveryCommand(t *testing.T) {
	text := docSection(t, "cli.md", "# The command line")
	table, _, _ := strings.Cut(text, "Every command takes")
	for _, c := range commands {
		if !strings.Contains(table, "`tether "+c.name+"`") && !strings.Contains(table, "`"+c.name+"`") {
			t.Errorf("docs/cli.md's table of commands does not name %s", c.name)
		}
	}
	for _, m := range regexp.MustCompile("`tether ([a-z]+)`").FindAllStringSubmatch(table, -1) {
		found := false
		for _, c := range commands {
			found = found || c.name == m[1]
		}
		if !found {
			t.Errorf("docs/cli.md names tether %s, which is no command", m[1])
		}
	}
}

// docs/architecture.md's table of the files on disk says where each one
// is, as the code puts it.
func TestArchitectureDocSaysWhereFilesAre(t *testing.T) {
	homes := map[string]string{}
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		homes[v] = filepath.Join(t.TempDir(), strings.ToLower(v))
		t.Setenv(v, homes[v])
	}
	root := t.TempDir()
	logPath, err := logging.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{ // the table's "what" → the code's path
		"daemon log":               logPath,
		"undo checkpoints":         filepath.Join(project.StateDir(root), "undo"),
		"staged `dryRun` changes":  stores.StagingDir(root),
		"saved \"always\" answers": stores.RulesPath(root),
		"project trust":            shell.TrustFile(root),
		"project memory":           memory.Dir(root),
		"background job logs":      shell.JobsRoot(),
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Files on disk\n")
	if !ok {
		t.Fatal("docs/architecture.md has no Files on disk section")
	}
	seen := 0
	for _, row := range strings.Split(section, "\n") {
		cells := strings.Split(row, " | ")
		if len(cells) < 2 || !strings.HasPrefix(row, "| ") {
			continue
		}
		what := strings.TrimPrefix(cells[0], "| ")
		want, ok := where[what]
		if !ok {
			if what != "what" && what != "---" {
				t.Errorf("the table has a row %q this test does not know: add where the code puts it", what)
			}
			continue
		}
		seen++
		stated := regexp.MustCompile("`([^`]+)`").FindStringSubmatch(cells[1])
		if stated == nil {
			t.Errorf("%s: no path in %q", what, cells[1])
			continue
		}
		path := strings.ReplaceAll(stated[1], "<key>", project.Key(root))
		for v, home := range homes {
			path = strings.ReplaceAll(path, "$"+v, home)
		}
		if filepath.Clean(filepath.FromSlash(path)) != filepath.Clean(want) {
			t.Errorf("%s: the doc says %s, the code uses %s", what, path, want)
		}
	}
	if seen != len(where) {
		t.Errorf("the table has %d of the %d rows this test checks", seen, len(where))
	}
}
