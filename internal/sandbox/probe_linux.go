package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Probe finds the strongest level this machine passes by running the real
// init once per level: for full, the user namespace's maps, the mounts
// (a tmpfs, an overlay whose upper folder must receive the probe's write
// while the real folder stays untouched), the loopback, Landlock where
// the kernel has it; for landlock, the helper applying it. Creating a
// user namespace is not enough to trust it: Ubuntu's AppArmor lets the
// clone succeed and then refuses the maps or the mounts, so nothing but
// the real thing is proof. The probe's folders go in dir (the system's
// temporary folder when empty), where those of a probe that was killed
// halfway are cleared first; it gives up on a level when ctx ends.
func Probe(ctx context.Context, dir string) Status {
	st := Status{Level: LevelNone, LandlockABI: landlockABI()}
	if dir == "" {
		dir = os.TempDir()
	}
	clearStaleProbes(dir)
	work, err := os.MkdirTemp(dir, probePrefix)
	if err != nil {
		st.Why = fmt.Sprintf("cannot make the probe's folder: %v", err)
		return st
	}
	defer os.RemoveAll(work)
	work, _ = filepath.EvalSymlinks(work)

	fullErr := probeFull(ctx, work)
	if fullErr == nil {
		st.Level = LevelFull
		return st
	}
	st.Why = "the full sandbox failed its probe: " + fullErr.Error()
	st.Advice = fullAdvice(fullErr)
	if st.LandlockABI < minLandlockABI {
		if st.LandlockABI == 0 {
			st.Why += "; the kernel has no Landlock (Linux 5.13 or later, with landlock in the lsm= boot list)"
		} else {
			st.Why += fmt.Sprintf("; the kernel's Landlock ABI %d is too old (2, Linux 5.19, is needed)", st.LandlockABI)
		}
		return st
	}
	if err := probeRun(ctx, Spec{Level: LevelLandlock, Folders: []Folder{{Path: work}}}, work, "true"); err != nil {
		st.Why += "; Landlock failed its probe too: " + err.Error()
		return st
	}
	st.Level = LevelLandlock
	return st
}

// probePrefix names the probe's folders.
const probePrefix = "tether-sandbox-probe-"

// clearStaleProbes removes the folders of probes that were stopped before
// they could clean up (their process killed): those of this user older
// than any probe can run.
func clearStaleProbes(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), probePrefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < 2*probeTimeout {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Getuid() {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// probeFull runs the full init with an overlaid folder and checks that a
// write landed in the upper folder, not the real one.
func probeFull(ctx context.Context, work string) error {
	folder, upper, scratch := filepath.Join(work, "folder"), filepath.Join(work, "upper"), filepath.Join(work, "work")
	for _, d := range []string{folder, upper, scratch} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	s := Spec{Level: LevelFull, Folders: []Folder{{Path: folder, Upper: upper, Work: scratch}}, Grace: time.Second}
	if err := probeRun(ctx, s, folder, "echo probe > probe"); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(folder, "probe")); err == nil {
		return errors.New("a write through the overlay reached the real folder")
	}
	if b, err := os.ReadFile(filepath.Join(upper, "probe")); err != nil || string(b) != "probe\n" {
		return errors.New("a write through the overlay did not reach its upper folder")
	}
	return nil
}

// probeRun runs one command confined by s, in dir.
func probeRun(ctx context.Context, s Spec, dir, command string) error {
	sh := "/bin/sh"
	cmd := exec.Command(sh, "-c", command)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	l, err := s.Wrap(cmd)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		l.Close()
		switch {
		case errors.Is(err, syscall.ENOSPC):
			return errors.New("the kernel refused a new user namespace (their limit, user.max_user_namespaces, is 0 or reached)")
		case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
			return fmt.Errorf("the kernel refused a new user namespace: %w", err)
		case errors.Is(err, syscall.EINVAL):
			return fmt.Errorf("the kernel does not offer the namespaces the sandbox needs: %w", err)
		}
		return err
	}
	done := make(chan error, 1)
	go func() { done <- l.Started() }()
	var serr error
	select {
	case serr = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		serr = fmt.Errorf("no answer within the probe's time: %w", context.Cause(ctx))
	}
	if serr != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		l.Close()
		return unwrapSetup(serr)
	}
	werr := cmd.Wait()
	e := l.Finish()
	switch {
	case e.Known && (e.ExitCode != 0 || e.Signal != 0):
		return fmt.Errorf("the probe's command failed: %s", strings.TrimSpace(out.String()))
	case !e.Known && werr != nil:
		return fmt.Errorf("the probe's command failed (%v): %s", werr, strings.TrimSpace(out.String()))
	}
	return nil
}

// unwrapSetup drops the "could not be set up" prefix, which the probe's
// own message already says.
func unwrapSetup(err error) error {
	msg := strings.TrimPrefix(err.Error(), ErrSetup.Error()+": ")
	return errors.New(msg)
}

// fullAdvice says what would let the full sandbox work here, from what
// failed and what the machine's settings show.
func fullAdvice(err error) string {
	exe, _ := os.Executable()
	if real, e := filepath.EvalSymlinks(exe); e == nil {
		exe = real
	}
	if readSysctl("kernel/apparmor_restrict_unprivileged_userns") == "1" {
		return fmt.Sprintf("AppArmor restricts unprivileged user namespaces on this machine. Either allow them for everyone "+
			"(sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, and the same line in /etc/sysctl.d/60-tether.conf to keep it), "+
			"or only for Tether: save this profile as /etc/apparmor.d/tether and run sudo apparmor_parser -r /etc/apparmor.d/tether\n%s",
			AppArmorProfile(exe))
	}
	if readSysctl("kernel/unprivileged_userns_clone") == "0" {
		return "Unprivileged user namespaces are turned off: sudo sysctl -w kernel.unprivileged_userns_clone=1 (and the same line in /etc/sysctl.d/60-tether.conf to keep it)"
	}
	if readSysctl("user/max_user_namespaces") == "0" {
		return "User namespaces are turned off: sudo sysctl -w user.max_user_namespaces=15000 (and the same line in /etc/sysctl.d/60-tether.conf to keep it)"
	}
	if inContainer() {
		return "Tether runs in a container, whose seccomp profile or masked /proc refuses namespaces; run it on the host, or give the container its own user namespaces (podman, or docker with --security-opt seccomp=unconfined --security-opt apparmor=unconfined)"
	}
	if strings.Contains(err.Error(), "overlay") {
		return "The kernel refused an overlay mount in a user namespace, which needs Linux 5.11 or later"
	}
	return ""
}

// AppArmorProfile is the AppArmor profile that lets the binary at exe
// create user namespaces where AppArmor restricts them (Ubuntu 23.10 and
// later), as Ubuntu's own profiles do for bwrap.
func AppArmorProfile(exe string) string {
	return fmt.Sprintf(`abi <abi/4.0>,
include <tunables/global>

profile tether %s flags=(unconfined) {
  userns,

  include if exists <local/tether>
}
`, exe)
}

func readSysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func inContainer() bool {
	for _, p := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}
