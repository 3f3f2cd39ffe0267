package search

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// needRg returns the real ripgrep. Tests that need it fail, not skip,
// when it is missing: a silent skip would hide that search is untested.
func needRg(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("rg")
	if err != nil {
		t.Fatal("ripgrep (rg) is not on PATH: install it (Debian package ripgrep; the project's test script does) to run the search tests")
	}
	return p
}

// tree writes files (path → content) under a new temp folder.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeRg writes a shell script that stands in for ripgrep.
func fakeRg(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitForPid reads a pid a fake ripgrep wrote. Waiting for the file is
// synchronisation with the script, not a timing assertion: the deadline
// only turns a hang into a failure.
func waitForPid(t testing.TB, file string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(file)
		if s := strings.TrimSpace(string(b)); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("pid file %s: %v", file, err)
			}
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the fake rg never wrote %s", file)
	return 0
}

// goneSoon waits until gone(pid). A killed process closes its files a
// moment before the kernel marks it dead, so right after its pipes close
// it may still show as running; the deadline only turns a survivor into a
// failure.
func goneSoon(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}
