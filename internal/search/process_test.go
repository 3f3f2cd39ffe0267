package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStopAtLimitKillsRipgrep(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	// An endless matcher, with a child of its own that must die too.
	rg := fakeRg(t, `sleep 1000 & echo $! > `+pidFile+`.child
echo $$ > `+pidFile+`
while :; do printf '%s\0%s\n' a.txt 1:match; done`)
	res, err := Grep(context.Background(), GrepQuery{Rg: rg, Dir: t.TempDir(), Pattern: "match", MaxLines: 5, MaxBytes: 1 << 20, MaxColumns: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != AtLimit || res.Lines != 5 || strings.Count(res.Text, "a.txt:1:match\n") != 5 {
		t.Fatalf("stop=%v lines=%d text=%q", res.Stop, res.Lines, res.Text)
	}
	if pid := waitForPid(t, pidFile); !reaped(pid) {
		t.Errorf("rg (pid %d) is still there after the search stopped", pid)
	}
	if child := waitForPid(t, pidFile+".child"); !goneSoon(child) {
		t.Errorf("rg's child (pid %d) outlived the search", child)
	}
}

func TestStopAtBudget(t *testing.T) {
	rg := fakeRg(t, `while :; do printf '%s\0%s\n' a.txt 1:0123456789; done`)
	res, err := Grep(context.Background(), GrepQuery{Rg: rg, Dir: t.TempDir(), Pattern: "x", MaxLines: 1000, MaxBytes: 100, MaxColumns: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != AtBudget || len(res.Text) > 100 || res.Lines != 100/len("a.txt:1:0123456789\n") {
		t.Fatalf("stop=%v lines=%d len=%d", res.Stop, res.Lines, len(res.Text))
	}
}

func TestCancelKillsRipgrepAndReturnsNothing(t *testing.T) {
	for _, files := range []bool{false, true} {
		pidFile := filepath.Join(t.TempDir(), "pid")
		rg := fakeRg(t, `printf '%s\0%s\n' a.txt 1:partial
sleep 1000 & echo $! > `+pidFile+`.child
echo $$ > `+pidFile+`
wait`)
		ctx, cancel := context.WithCancel(context.Background())
		type answer struct {
			text string
			err  error
		}
		done := make(chan answer)
		go func() {
			if files {
				r, err := Files(ctx, FilesQuery{Rg: rg, Dir: t.TempDir(), MaxPaths: 10, MaxBytes: 1000})
				done <- answer{strings.Join(r.Paths, "\n"), err}
				return
			}
			r, err := Grep(ctx, GrepQuery{Rg: rg, Dir: t.TempDir(), Pattern: "x", MaxLines: 10, MaxBytes: 1000, MaxColumns: 100})
			done <- answer{r.Text, err}
		}()
		pid := waitForPid(t, pidFile)
		cancel()
		got := <-done
		if !errors.Is(got.err, context.Canceled) || got.text != "" {
			t.Errorf("files=%v: err=%v text=%q, want context.Canceled and nothing", files, got.err, got.text)
		}
		if !reaped(pid) {
			t.Errorf("files=%v: rg (pid %d) still there after cancel", files, pid)
		}
		if child := waitForPid(t, pidFile+".child"); !goneSoon(child) {
			t.Errorf("files=%v: rg's child (pid %d) outlived the cancel", files, child)
		}
	}
}

func TestMissingRipgrep(t *testing.T) {
	for _, rg := range []string{"", filepath.Join(t.TempDir(), "no-such-rg"), t.TempDir()} {
		_, err := Grep(context.Background(), GrepQuery{Rg: rg, Dir: t.TempDir(), Pattern: "x", MaxLines: 1, MaxBytes: 100})
		if !errors.Is(err, ErrNoRipgrep) {
			t.Errorf("rg=%q: err=%v, want ErrNoRipgrep", rg, err)
		}
	}
}

func TestRipgrepErrorCarriesItsMessage(t *testing.T) {
	rg := fakeRg(t, `echo 'regex parse error: unclosed group' >&2
echo 'Running with --debug will show why files are being skipped.' >&2
exit 2`)
	_, err := Grep(context.Background(), GrepQuery{Rg: rg, Dir: t.TempDir(), Pattern: "(", MaxLines: 1, MaxBytes: 100})
	var rgErr *RgError
	if !errors.As(err, &rgErr) || rgErr.Stderr != "regex parse error: unclosed group" {
		t.Fatalf("err = %#v", err)
	}
}

func TestWarningsKeptWithResults(t *testing.T) {
	rg := fakeRg(t, `printf '%s\0%s\n' a.txt 1:x
echo 'b.txt: Permission denied (os error 13)' >&2
exit 2`)
	res, err := Grep(context.Background(), GrepQuery{Rg: rg, Dir: t.TempDir(), Pattern: "x", MaxLines: 10, MaxBytes: 1000})
	if err != nil || res.Text != "a.txt:1:x\n" || !strings.Contains(res.Warnings, "Permission denied") {
		t.Fatalf("res=%+v err=%v", res, err)
	}
}

func TestRecordCutAtLimit(t *testing.T) {
	rg := fakeRg(t, `printf '%s\0%s\n' a.txt 1:$(printf '%0100000d' 0)`)
	res, err := Grep(context.Background(), GrepQuery{Rg: rg, Dir: t.TempDir(), Pattern: "x", MaxLines: 10, MaxBytes: 1 << 20, MaxColumns: 50})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != 1 || len(res.Text) > 50+maxPathBytes+64+len("\n") {
		t.Fatalf("lines=%d len=%d", res.Lines, len(res.Text))
	}
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func TestNoDescriptorLeak(t *testing.T) {
	endless := fakeRg(t, `while :; do printf '%s\0%s\n' a.txt 1:x; done`)
	failing := fakeRg(t, `echo 'regex parse error' >&2; exit 2`)
	searchAll := func() {
		Grep(context.Background(), GrepQuery{Rg: endless, Dir: t.TempDir(), Pattern: "x", MaxLines: 3, MaxBytes: 1000})
		Grep(context.Background(), GrepQuery{Rg: failing, Dir: t.TempDir(), Pattern: "x", MaxLines: 3, MaxBytes: 1000})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		Grep(ctx, GrepQuery{Rg: endless, Dir: t.TempDir(), Pattern: "x", MaxLines: 3, MaxBytes: 1000})
	}
	searchAll() // the first run may open the runtime's poller for good
	before := openFiles(t)
	for range 5 {
		searchAll()
	}
	if after := openFiles(t); after != before {
		t.Fatalf("%d open descriptors before, %d after", before, after)
	}
}
