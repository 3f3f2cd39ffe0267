package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/memory"
)

func TestMemoryCommand(t *testing.T) {
	dir := t.TempDir()
	r := runCallIn(t, dir, noTerminal(), "", "--mode", "bypass",
		"remember", `{"name":"build-cache","text":"Clear .cache after a toolchain update.","description":"where the build cache is","type":"procedural"}`,
		"remember", `{"name":"prefs","text":"The user prefers tabs.","type":"user"}`)
	if r.code != 0 {
		t.Fatalf("call: %d %s %s", r.code, r.stdout, r.stderr)
	}
	list := runIn(t, memoryCmd.main, dir)
	if list.code != 0 || !strings.Contains(list.stdout, "build-cache") || !strings.Contains(list.stdout, "where the build cache is") || !strings.Contains(list.stdout, "(2 in ") {
		t.Fatalf("list: %d %q %q", list.code, list.stdout, list.stderr)
	}
	show := runIn(t, memoryCmd.main, dir, "show", "prefs")
	if show.code != 0 || !strings.HasPrefix(show.stdout, "---\n") || !strings.Contains(show.stdout, "The user prefers tabs.") {
		t.Fatalf("show: %d %q %q", show.code, show.stdout, show.stderr)
	}
	if bad := runIn(t, memoryCmd.main, dir, "show", "../prefs"); bad.code != 1 || !strings.Contains(bad.stderr, "short slug") {
		t.Fatalf("show ../prefs: %d %q", bad.code, bad.stderr)
	}
	found := runIn(t, memoryCmd.main, dir, "search", "toolchain", "update")
	if found.code != 0 || !strings.Contains(found.stdout, "1 of 2 memories match") || !strings.Contains(found.stdout, "build-cache (") {
		t.Fatalf("search: %d %q %q", found.code, found.stdout, found.stderr)
	}
	archived := runIn(t, memoryCmd.main, dir, "archive", "build-cache")
	if archived.code != 0 || !strings.Contains(archived.stdout, "memory/archive/build-cache.md") || !strings.Contains(archived.stdout, "tether undo") {
		t.Fatalf("archive: %d %q %q", archived.code, archived.stdout, archived.stderr)
	}
	if list := runIn(t, memoryCmd.main, dir); strings.Contains(list.stdout, "build-cache") {
		t.Fatalf("an archived memory is listed: %q", list.stdout)
	}
	if _, err := os.Stat(filepath.Join(memory.Dir(dir), "archive", "build-cache.md")); err != nil {
		t.Fatal(err)
	}
	if u := runIn(t, undoCmd.main, dir); u.code != 0 {
		t.Fatalf("undo: %d %q", u.code, u.stderr)
	}
	if list := runIn(t, memoryCmd.main, dir, "--json"); !strings.Contains(list.stdout, `"name": "build-cache"`) {
		t.Fatalf("undo did not bring the memory back: %q", list.stdout)
	}
	if bad := runIn(t, memoryCmd.main, dir, "forget", "x"); bad.code != 2 {
		t.Fatalf("unknown action: %d", bad.code)
	}
}

// --yes approves every step, but not a memory write after content from
// outside: with no terminal to ask, it is refused.
func TestCallYesDoesNotCoverMemoryWritesAfterTheNetwork(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	dir := t.TempDir()
	r := runCallIn(t, dir, noTerminal(), "", "--yes",
		"shell", `{"command":"curl -s file:///dev/null"}`,
		"remember", `{"name":"fetched","text":"what the page said"}`)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "--yes does not cover it") || !strings.Contains(r.stderr, "curl -s file:///dev/null") {
		t.Fatalf("call: %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(memory.Dir(dir), "fetched.md")); err == nil {
		t.Fatal("the memory was written")
	}
}
