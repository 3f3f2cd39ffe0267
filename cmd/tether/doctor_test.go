package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func runDoctorIn(t *testing.T, args ...string) cliRun {
	t.Helper()
	var out, errb bytes.Buffer
	code := doctorMain(context.Background(), args, cmdIO{stdout: &out, stderr: &errb})
	return cliRun{code, out.String(), errb.String()}
}

func TestDoctorWithoutRipgrepWarnsAndPasses(t *testing.T) {
	home := isolateXDG(t)
	t.Setenv("PATH", t.TempDir()) // a PATH with no rg on it
	r := runDoctorIn(t)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (a missing rg is a warning):\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^warn\s+ripgrep\s.*apt-get install ripgrep`).MatchString(r.stdout) {
		t.Errorf("no ripgrep warning with the install hint:\n%s", r.stdout)
	}
	for _, sub := range []string{"xdg_state_home", "xdg_config_home", "xdg_data_home"} {
		dir := filepath.Join(home, sub, "tether")
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("doctor did not create %s: %v", dir, err)
		}
		if !strings.Contains(r.stdout, dir+" (writable)") {
			t.Errorf("the report does not show %s as writable:\n%s", dir, r.stdout)
		}
	}
}

func TestDoctorReportsRipgrepVersion(t *testing.T) {
	isolateXDG(t)
	fake := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'ripgrep 99.1.0'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runDoctorIn(t, "--rg", fake)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, fake+" (ripgrep 99.1.0)") {
		t.Errorf("the report does not show the rg path and version:\n%s", r.stdout)
	}
}

func TestDoctorFailsOnUnwritableFolder(t *testing.T) {
	isolateXDG(t)
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A regular file where a folder should be: not even root can create
	// the state folder under it.
	t.Setenv("XDG_STATE_HOME", blocker)
	reloadXDG()
	r := runDoctorIn(t)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", r.code, r.stdout)
	}
	if !regexp.MustCompile(`(?m)^FAIL\s+state folder\s`).MatchString(r.stdout) {
		t.Errorf("the state folder is not reported as failed:\n%s", r.stdout)
	}
}

func TestDoctorPrintsVersions(t *testing.T) {
	isolateXDG(t)
	r := runDoctorIn(t)
	for _, want := range []string{"tether   " + version, "go       go", "os/arch  "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestVersionLine(t *testing.T) {
	want := regexp.MustCompile(`^tether ` + regexp.QuoteMeta(version) + ` \(go\S+ \w+/\w+\)$`)
	if got := versionLine(); !want.MatchString(got) {
		t.Errorf("versionLine() = %q, want %v", got, want)
	}
}
