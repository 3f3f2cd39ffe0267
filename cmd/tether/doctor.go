package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/shell"
)

// check is one line of the doctor's report.
type check struct {
	status string // "ok", "warn" or "FAIL"
	what   string
	detail string
}

func runDoctor(args []string) int {
	return doctorMain(context.Background(), args, osIO())
}

// doctorMain checks what tether needs from the machine. Only a real
// failure (a folder tether cannot write) exits non-zero; a missing
// ripgrep is a warning because every tool but grep and glob still works.
func doctorMain(ctx context.Context, args []string, cio cmdIO) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	rgPath := fs.String("rg", "", "ripgrep binary to check (default: rg on PATH)")
	mode := fs.String("sandbox", sandbox.SettingAuto, "the shellSandbox `MODE` to report the level of: "+strings.Join(sandbox.Settings, ", "))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(cio.stderr, "tether doctor: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if !sandbox.ValidSetting(*mode) {
		fmt.Fprintf(cio.stderr, "tether doctor: --sandbox %q is not one of %s\n", *mode, strings.Join(sandbox.Settings, ", "))
		return 2
	}
	fmt.Fprintf(cio.stdout, "tether   %s\ngo       %s\nos/arch  %s/%s\n\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)

	checks := []check{checkRipgrep(ctx, *rgPath), checkCommands()}
	sb, advice := checkSandbox(ctx, *mode)
	checks = append(checks, sb)
	for _, d := range tetherDirs() {
		checks = append(checks, checkDir(d.what, d.path))
	}
	failed := 0
	for _, c := range checks {
		fmt.Fprintf(cio.stdout, "%-4s  %-13s %s\n", c.status, c.what, c.detail)
		if c.status == "FAIL" {
			failed++
		}
	}
	if advice != "" {
		fmt.Fprintf(cio.stdout, "\nTo get the full sandbox: %s\n", advice)
	}
	if failed > 0 {
		fmt.Fprintf(cio.stdout, "\n%d check(s) failed\n", failed)
		return 1
	}
	return 0
}

// checkSandbox probes the sandbox afresh and says at which level shell
// commands run with the shellSandbox setting mode, why not a stronger
// one, and (returned apart) what the user can do to get the full one.
func checkSandbox(ctx context.Context, mode string) (check, string) {
	dir := filepath.Join(project.StateHome(), "tether")
	if os.MkdirAll(dir, 0o700) != nil {
		dir = ""
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st := sandbox.Probe(ctx, dir)
	level := sandbox.Choose(mode, st)
	c := check{"ok", "sandbox", string(level)}
	if st.LandlockABI > 0 {
		c.detail += fmt.Sprintf(" (Landlock ABI %d)", st.LandlockABI)
	}
	switch {
	case mode == sandbox.SettingOff:
		c.status, c.detail = "warn", "none: shellSandbox is off, so commands run with all of your rights (this machine passes "+string(st.Level)+")"
	case mode == sandbox.SettingLandlock && level != st.Level:
		c.detail += ", as shellSandbox asks (this machine passes " + string(st.Level) + ")"
	case level == sandbox.LevelFull:
		c.detail += ": namespaces, a private /tmp, the home folder hidden, no network unless allowed; Landlock inside"
	case level == sandbox.LevelSeatbelt:
		c.detail += ": macOS Seatbelt, writes confined, the home folder hidden, no network unless allowed; no overlay"
	default:
		c.status = "warn"
		c.detail += ": " + st.Why
	}
	if runtime.GOOS == "windows" {
		c.status, c.detail = "warn", "none: Windows has no sandbox; every command runs with all of your rights, and asks first"
	}
	if mode == sandbox.SettingOff || st.Level == sandbox.LevelFull {
		return c, ""
	}
	return c, st.Advice
}

func checkRipgrep(ctx context.Context, configured string) check {
	path, err := search.LookRg(configured)
	if err != nil {
		return check{"warn", "ripgrep", fmt.Sprintf("%v: grep and glob will not work until it is installed (Debian/Ubuntu: apt-get install ripgrep)", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return check{"warn", "ripgrep", fmt.Sprintf("%s does not run (%v): grep and glob will fail; reinstall it (apt-get install ripgrep)", path, err)}
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return check{"ok", "ripgrep", fmt.Sprintf("%s (%s)", path, strings.TrimSpace(first))}
}

// checkCommands says which shell runs commands and how everything a
// command starts is found and stopped here, with what this system cannot
// promise (a warning, not a failure).
func checkCommands() check {
	sh, err := shell.FindShell()
	if err != nil {
		return check{"warn", "commands", fmt.Sprintf("%v: the shell tool will not work", err)}
	}
	dir, err := os.MkdirTemp("", "tether-doctor-jobs-")
	if err != nil {
		return check{"warn", "commands", fmt.Sprintf("%s; cannot try a job manager: %v", sh, err)}
	}
	defer os.RemoveAll(dir)
	m, err := shell.OpenJobsIn(dir)
	if err != nil {
		return check{"warn", "commands", fmt.Sprintf("%s; background jobs are unavailable: %v", sh, err)}
	}
	isolation := m.Isolation()
	m.Close()
	p := shell.ThisPlatform()
	c := check{"ok", "commands", fmt.Sprintf("%s; their processes are stopped through %s", sh, isolation)}
	if p.Limits != "" {
		c.status, c.detail = "warn", c.detail+". "+p.Limits
	}
	return c
}

type namedDir struct{ what, path string }

// tetherDirs are the folders tether keeps files in, per the XDG base
// directory rules: logs and undo checkpoints, allow lists, project memory.
func tetherDirs() []namedDir {
	return []namedDir{
		{"state folder", filepath.Join(project.StateHome(), "tether")},
		{"config folder", filepath.Join(project.ConfigHome(), "tether")},
		{"data folder", filepath.Join(project.DataHome(), "tether")},
	}
}

// checkDir makes sure dir exists (creating it as tether would) and that a
// file can be created in it.
func checkDir(what, dir string) check {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return check{"FAIL", what, fmt.Sprintf("%s cannot be created: %v", dir, err)}
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return check{"FAIL", what, fmt.Sprintf("%s is not writable: %v", dir, err)}
	}
	name := f.Name()
	werr := f.Close()
	if rerr := os.Remove(name); werr == nil {
		werr = rerr
	}
	if werr != nil {
		return check{"FAIL", what, fmt.Sprintf("%s: writing a test file failed: %v", dir, werr)}
	}
	return check{"ok", what, dir + " (writable)"}
}
