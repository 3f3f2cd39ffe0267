package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every test here is an attack from inside the sandbox, tried at each
// level this machine passes, that must be refused with nothing outside
// changed; and a control where it matters that the same command works
// where it is allowed (so a refusal is the sandbox's, not a typo's).

func forEachLevel(t *testing.T, f func(t *testing.T, l Level)) {
	for _, l := range levels {
		t.Run(string(l), func(t *testing.T) { f(t, l) })
	}
}

func unique() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func TestWritesStayInTheWorkspace(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		before := snapshot(t, b.out)
		b.mustRun(`echo in > inside.txt && mkdir -p sub/deeper && echo x > sub/deeper/f && mv inside.txt sub/ && rm -r sub/deeper`)
		if got, _ := os.ReadFile(filepath.Join(b.ws, "sub", "inside.txt")); string(got) != "in\n" {
			t.Errorf("a write inside the workspace did not land: %q", got)
		}
		b.mustFail(`echo x > "$OUT/escaped"`)
		b.mustFail(`cp /etc/hostname "$OUT/copied"`)
		b.mustFail(`touch "$OUT/../escaped-` + unique() + `"`)
		// .. out of the bind: the workspace's parent holds the outside folder.
		b.mustFail(`cd .. && touch escaped-by-dotdot && echo x > outside/escaped`)
		b.mustFail(`echo x > "$WS/../outside/escaped"`)
		unchanged(t, "the folder outside the workspace", b.out, before)
		if _, err := os.Stat(filepath.Join(filepath.Dir(b.ws), "escaped-by-dotdot")); err == nil {
			t.Error(".. out of the workspace wrote beside it")
		}
		// System folders: refused even where the user (root here) could
		// write them.
		name := "tether-escape-" + unique()
		b.mustFail(`echo x > /etc/` + name)
		b.mustFail(`echo x > /usr/local/` + name)
		b.mustFail(`echo x > "$HOME/` + name + `"`)
		for _, p := range []string{"/etc/" + name, "/usr/local/" + name, filepath.Join(DefaultLayout().Home, name)} {
			if _, err := os.Stat(p); err == nil {
				os.Remove(p)
				t.Errorf("%s was written from inside the sandbox", p)
			}
		}
	})
}

// /tmp is private at the full level: what a command writes there never
// reaches the real /tmp. At the landlock level the real /tmp is neither
// readable nor writable; TMPDIR is a private folder.
func TestTmpIsPrivate(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		name := "/tmp/tether-private-" + unique()
		if l == LevelFull {
			b.mustRun(`echo mine > ` + name + ` && cat ` + name + ` && ls /tmp`)
		} else {
			b.mustFail(`echo mine > ` + name)
			b.mustRun(`echo mine > "$TMPDIR/f" && cat "$TMPDIR/f"`)
		}
		if _, err := os.Stat(name); err == nil {
			os.Remove(name)
			t.Errorf("%s reached the real /tmp", name)
		}
		// What the real /tmp holds is neither listed nor readable.
		there, err := os.CreateTemp("", "tether-real-tmp-")
		if err != nil {
			t.Fatal(err)
		}
		there.WriteString("REAL-TMP")
		there.Close()
		defer os.Remove(there.Name())
		out, _ := b.run(`ls -a /tmp; cat ` + there.Name())
		if strings.Contains(out, filepath.Base(there.Name())+"\n") || strings.Contains(out, "REAL-TMP") {
			t.Errorf("the real /tmp shows through:\n%s", out)
		}
	})
}

func TestSymlinksCannotLeadOut(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		os.WriteFile(filepath.Join(b.out, "secret"), []byte("SECRET-"+unique()), 0o644)
		// A link the test planted before the command, and links the
		// command makes.
		if err := os.Symlink(b.out, filepath.Join(b.ws, "planted")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, b.out)
		out := b.mustFail(`cat planted/secret`)
		b.mustFail(`echo x > planted/written`)
		b.mustFail(`ln -s "$OUT" made && echo x > made/written`)
		b.mustFail(`ln -s /etc made-etc && echo x > made-etc/tether-` + unique())
		b.mustFail(`ln -s / root-link && echo x > root-link/etc/tether-` + unique())
		b.mustFail(`cat made/secret`)
		unchanged(t, "the link's target", b.out, before)
		if strings.Contains(out, "SECRET-") {
			t.Errorf("a secret was read through a link:\n%s", out)
		}
	})
}

func TestProcCannotLeadOut(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		os.WriteFile(filepath.Join(b.out, "secret"), []byte("SECRET-"+unique()), 0o644)
		before := snapshot(t, b.out)
		cwd, _ := os.Getwd()
		cwdBefore := snapshot(t, cwd)
		var outs []string
		for _, cmd := range []string{
			`cat /proc/self/root"$OUT/secret"`,
			`echo x > /proc/self/root"$OUT/written"`,
			`ls /proc/$DAEMON/cwd/`,
			`echo x > /proc/$DAEMON/cwd/tether-escaped`,
			`cat /proc/$DAEMON/environ`,
			`cat /proc/$DAEMON/root"$OUT/secret"`,
			`readlink /proc/$DAEMON/fd/1`,
			`cat /proc/$DAEMON/fd/0 </dev/null`,
			`cat /proc/1/environ`,
		} {
			outs = append(outs, b.mustFail(cmd))
		}
		unchanged(t, "the folder outside", b.out, before)
		unchanged(t, "the daemon's working folder", cwd, cwdBefore)
		if all := strings.Join(outs, "\n"); strings.Contains(all, "SECRET-") || strings.Contains(all, "PATH=") {
			t.Errorf("something outside was read through /proc:\n%s", all)
		}
	})
}

// The user's home folder is empty but for the toolchain, however it is
// named: $HOME, /root, /home/<user>, ~, /proc/self/cwd.
func TestSecretsInTheHomeFolderAreHidden(t *testing.T) {
	home := DefaultLayout().Home
	if home == "" {
		t.Skip("no home folder")
	}
	name := ".tether-test-secret-" + unique()
	secret := "SECRET-" + unique()
	if err := os.WriteFile(filepath.Join(home, name), []byte(secret), 0o600); err != nil {
		t.Skipf("cannot place a secret in the home folder: %v", err)
	}
	t.Cleanup(func() { os.Remove(filepath.Join(home, name)) })
	paths := []string{`"$HOME/` + name + `"`, `~/` + name, home + "/" + name}
	if strings.HasPrefix(home, "/home/") || home == "/root" {
		paths = append(paths, home+"/"+name)
	}
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		var outs []string
		for _, p := range paths {
			outs = append(outs, b.mustFail(`cat `+p))
		}
		outs = append(outs, b.mustFail(`cd "$HOME" && cat /proc/self/cwd/`+name))
		outs = append(outs, b.mustFail(`cd "$HOME" && cat ./`+name))
		outs = append(outs, b.mustFail(`cat "$HOME/.ssh/id_rsa" "$HOME/.ssh/id_ed25519" "$HOME/.netrc" "$HOME/.npmrc" "$HOME/.aws/credentials"`))
		outs = append(outs, b.mustFail(`HOME=/ && cat /root/`+name))
		if all := strings.Join(outs, "\n"); strings.Contains(all, secret) {
			t.Errorf("the secret was read:\n%s", all)
		}
		// Another user's home folder is hidden too, where the test can
		// make one.
		other := filepath.Join("/home", "tether-test-"+unique())
		if os.Mkdir(other, 0o755) == nil {
			defer os.RemoveAll(other)
			os.WriteFile(filepath.Join(other, "secret"), []byte(secret), 0o644)
			if out := b.mustFail(`cat ` + other + `/secret`); strings.Contains(out, secret) {
				t.Errorf("another home folder's secret was read:\n%s", out)
			}
		}
	})
}

// The toolchain stays usable: the home folder's read-only paths are
// visible, the caches writable.
func TestToolchainAndCachesStayUsable(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		os.WriteFile(filepath.Join(b.ws, "go.mod"), []byte("module example.test/m\n\ngo 1.22\n"), 0o644)
		os.WriteFile(filepath.Join(b.ws, "main.go"), []byte("package main\n\nfunc main() { println(\"built\") }\n"), 0o644)
		out := b.mustRun(`go env GOCACHE && go build -o prog . && ./prog && git --version`, "PATH="+os.Getenv("PATH"))
		if !strings.Contains(out, "built") {
			t.Errorf("go build in the sandbox: %s", out)
		}
	})
}

func TestMountsAndNamespacesAreRefused(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		os.Mkdir(filepath.Join(b.ws, "m"), 0o755)
		before := snapshot(t, b.ws)
		for _, cmd := range []string{
			`mount -t tmpfs none m`,
			`mount --bind / m`,
			`umount /proc`,
			`umount -l /`,
			`unshare -Urm true`,
			`unshare -m true`,
			`unshare -n true`,
			`mkdir -p old && pivot_root . old`,
			`nsenter -t 1 -m true`,
			`grep -q 0000000000000000 /proc/self/status && echo $$ > /sys/fs/cgroup/cgroup.procs`,
			`echo $$ > /sys/fs/cgroup/unified/cgroup.procs`,
			`echo 1 > /proc/sys/kernel/sysrq`,
		} {
			b.mustFail(cmd)
		}
		os.Remove(filepath.Join(b.ws, "old"))
		unchanged(t, "the workspace", b.ws, before)
		caps := b.mustRun(`grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; grep NoNewPrivs /proc/self/status`)
		for _, line := range strings.Split(strings.TrimSpace(caps), "\n") {
			if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[0], "Cap") && strings.Trim(f[1], "0") != "" {
				t.Errorf("a capability is left: %s", line)
			}
		}
		if !strings.Contains(caps, "NoNewPrivs:\t1") {
			t.Errorf("no_new_privs is not set:\n%s", caps)
		}
	})
}

// A command cannot signal or trace a process outside its sandbox.
func TestSignalsAndPtraceStayInside(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		if l == LevelLandlock && machine(t).LandlockABI < 6 {
			t.Skip("Landlock scopes signals from ABI 6 (Linux 6.12); this kernel has ABI ", machine(t).LandlockABI)
		}
		b := newBox(t, l)
		victim := exec.Command("sleep", "1000")
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { victim.Process.Kill(); victim.Wait() }()
		pid := strconv.Itoa(victim.Process.Pid)
		b.mustFail(`kill -9 ` + pid)
		b.mustFail(`kill -TERM $DAEMON`)
		b.mustFail(`kill -STOP ` + pid)
		b.mustFail(`strace -p $DAEMON -e trace=none -o /dev/null & sleep 1; kill %1; wait %1`)
		b.mustFail(`python3 -c 'import ctypes,sys; sys.exit(0 if ctypes.CDLL(None).ptrace(16, int(sys.argv[1]), 0, 0) == 0 else 1)' $DAEMON`, "PATH=/usr/bin:/bin")
		if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("the process outside was killed: %v", err)
		}
		st, _ := os.ReadFile("/proc/" + pid + "/stat")
		if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "T" {
			t.Error("the process outside was stopped")
		}
		// Inside, the command may signal its own processes.
		b.mustRun(`sleep 100 & kill $! && wait $! ; test $? -eq 143`)
	})
}

// The init runs Tether's own binary: a command must not be able to
// rewrite it through /proc (runc's CVE-2019-5736), nor any binary.
func TestBinariesCannotBeRewritten(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	before := fileHash(exe)
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		b.mustFail(`echo x >> /proc/1/exe`)
		b.mustFail(`echo x >> /proc/self/exe`)
		b.mustFail(`echo x >> "` + exe + `"`)
		b.mustFail(`cp /bin/true /proc/1/exe`)
		b.mustFail(`echo x >> /bin/sh`)
	})
	if after := fileHash(exe); after != before {
		t.Fatalf("the test binary %s was changed", exe)
	}
}

func TestUnixSocketsOutsideAreUnreachable(t *testing.T) {
	// A runtime folder where nothing else would hide it (/tmp would), as
	// XDG_RUNTIME_DIR may name.
	runtimeDir, err := os.MkdirTemp("/var/lib", "tether-test-runtime-")
	if err != nil {
		runtimeDir = t.TempDir()
	} else {
		t.Cleanup(func() { os.RemoveAll(runtimeDir) })
	}
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l, withLayout(func(lay *Layout) { lay.Hidden = append(lay.Hidden, runtimeDir) }))
		sockets := map[string]*listener{
			"in a folder outside":   listen(t, "unix", filepath.Join(b.out, "outside.sock")),
			"in the runtime folder": listen(t, "unix", filepath.Join(runtimeDir, "bus")),
		}
		if dir, err := os.MkdirTemp("/var/tmp", "tether-test-"); err == nil {
			defer os.RemoveAll(dir)
			sockets["in /var/tmp"] = listen(t, "unix", filepath.Join(dir, "s.sock"))
		}
		if dir, err := os.MkdirTemp("/run", "tether-test-"); err == nil {
			defer os.RemoveAll(dir)
			sockets["under /run"] = listen(t, "unix", filepath.Join(dir, "docker.sock"))
		}
		for where, ln := range sockets {
			path := ln.Addr().String()
			out := b.mustFail(`curl -sS --max-time 5 --unix-socket ` + path + ` http://x/`)
			if n := ln.accepted.Load(); n != 0 || strings.Contains(out, "reached") {
				t.Errorf("a Unix socket %s was reached (%d connections):\n%s", where, n, out)
			}
		}
		abstract := listen(t, "unix", "@tether-test-"+unique())
		name := strings.TrimPrefix(abstract.Addr().String(), "@")
		b.mustFail(`curl -sS --max-time 5 --abstract-unix-socket ` + name + ` http://x/`)
		netBox := newBox(t, l, withNetwork)
		netBox.mustFail(`curl -sS --max-time 5 --abstract-unix-socket ` + name + ` http://x/`)
		if n := abstract.accepted.Load(); n != 0 {
			t.Errorf("an abstract socket was reached %d times", n)
		}
		// A command's own sockets work at the full level.
		if l == LevelFull {
			b.mustRun(`python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind("own.sock"); s.listen(1); c=socket.socket(socket.AF_UNIX); c.connect("own.sock")'`, "PATH=/usr/bin:/bin")
		}
	})
}

func TestNetworkOnlyWhenAllowed(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		host := listen(t, "tcp", "127.0.0.1:0")
		addr := host.Addr().String()
		b := newBox(t, l)
		out := b.mustFail(`curl -sS --max-time 5 http://` + addr + `/`)
		if n := host.accepted.Load(); n != 0 {
			t.Fatalf("the host's loopback was reached without network (%d connections):\n%s", n, out)
		}
		if hints := Hints(out, b.spec); len(hints) == 0 || !strings.Contains(hints[0], "network: true") {
			t.Errorf("the failure gives no network hint: %q for output %q", hints, out)
		}
		with := newBox(t, l, withNetwork)
		if got := with.mustRun(`curl -sS --max-time 5 http://` + addr + `/`); !strings.Contains(got, "reached") {
			t.Errorf("with network the port was not reached: %s", got)
		}
		if host.accepted.Load() != 1 {
			t.Errorf("connections = %d, want 1", host.accepted.Load())
		}
		if l == LevelFull {
			// The command's own loopback works without network.
			b.mustRun(`python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); c=socket.create_connection(s.getsockname()); print("own loopback")'`, "PATH=/usr/bin:/bin")
		}
	})
}

// .git is written through (commits land), but hooks and configuration,
// which git runs later outside the sandbox, are not.
func TestGitWritesThroughButNotHooksOrConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		os.WriteFile(filepath.Join(b.ws, "a.txt"), []byte("a\n"), 0o644)
		gitEnv := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
		b.mustRun(`git init -q && git add . && git commit -qm first`, gitEnv...)
		log, err := exec.Command("git", "-C", b.ws, "log", "--format=%s").Output()
		if err != nil || strings.TrimSpace(string(log)) != "first" {
			t.Fatalf("the commit did not land: %q %v", log, err)
		}
		if l == LevelLandlock {
			return // a fresh box protects an existing .git, below
		}
		_ = l
	})
	// Full: hooks and config are mounted read-only, so the writes fail.
	// Landlock cannot keep part of a writable folder read-only: the
	// writes land, and the launch puts everything back when the command
	// ends, and says what it put back.
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		git := exec.Command("git", "init", "-q", b.ws)
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		gitDir := filepath.Join(b.ws, ".git")
		os.WriteFile(filepath.Join(gitDir, "hooks", "pre-push"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
		hooks, config := snapshot(t, filepath.Join(gitDir, "hooks")), fileHash(filepath.Join(gitDir, "config"))
		attacks := []string{
			`echo 'touch /tmp/pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
			`echo 'touch /tmp/pwned' >> .git/hooks/pre-push`,
			`echo '[core] hooksPath = evil' >> .git/config`,
			`git config core.fsmonitor 'touch /tmp/pwned'`,
			`rm -rf .git/hooks && ln -s "$OUT" .git/hooks`,
			`mv .git/config .git/config.old`,
		}
		for _, a := range attacks {
			if l == LevelFull {
				b.mustFail(a)
				continue
			}
			b.run(a)
			if len(b.last.Restored) == 0 {
				t.Errorf("%q changed nothing the guard put back", a)
			}
			unchanged(t, ".git/hooks after "+a, filepath.Join(gitDir, "hooks"), hooks)
			if fileHash(filepath.Join(gitDir, "config")) != config {
				t.Errorf(".git/config after %q is not as it was", a)
			}
		}
		unchanged(t, ".git/hooks", filepath.Join(gitDir, "hooks"), hooks)
		if fileHash(filepath.Join(gitDir, "config")) != config {
			t.Error(".git/config changed")
		}
		os.Remove(filepath.Join(gitDir, "config.old"))
		// What git writes on a commit still goes through, and changes
		// nothing the guard keeps.
		os.WriteFile(filepath.Join(b.ws, "b.txt"), []byte("b\n"), 0o644)
		b.mustRun(`git add b.txt && git -c user.name=t -c user.email=t@x commit -qm second`, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if len(b.last.Restored) != 0 {
			t.Errorf("a commit made the guard put back %q", b.last.Restored)
		}
		if log, _ := exec.Command("git", "-C", b.ws, "log", "--format=%s").Output(); !strings.Contains(string(log), "second") {
			t.Errorf("the second commit did not land: %q", log)
		}
	})
}

// A .git file (a linked worktree's) is read-only, and the repository it
// points to takes the worktree's commits.
func TestGitWorktreeCommitsLand(t *testing.T) {
	needLevel(t, LevelFull)
	b := newBox(t, LevelFull)
	main := filepath.Join(b.out, "main")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	for _, args := range [][]string{{"init", "-q", main}, {"-C", main, "commit", "-q", "--allow-empty", "-m", "root"}} {
		c := exec.Command("git", args...)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.Remove(b.ws)
	c := exec.Command("git", "-C", main, "worktree", "add", "-q", b.ws)
	c.Env = env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v %s", err, out)
	}
	b = &box{t: t, level: LevelFull, ws: b.ws, out: b.out}
	var err error
	if b.spec, err = Build(Options{Level: LevelFull, Folders: []Folder{{Path: b.ws}}, Grace: time.Second}, DefaultLayout()); err != nil {
		t.Fatal(err)
	}
	dotGit := fileHash(filepath.Join(b.ws, ".git"))
	b.mustRun(`echo w > w.txt && git add w.txt && git commit -qm in-worktree`, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	b.mustFail(`echo "gitdir: /tmp/elsewhere" > .git`)
	b.mustFail(`echo x > "` + filepath.Join(main, ".git", "hooks", "post-commit") + `"`)
	if fileHash(filepath.Join(b.ws, ".git")) != dotGit {
		t.Error("the .git file changed")
	}
	if log, _ := exec.Command("git", "-C", main, "log", "--all", "--format=%s").Output(); !strings.Contains(string(log), "in-worktree") {
		t.Errorf("the worktree's commit did not land in its repository: %q", log)
	}
}

// A folder with an overlay: writes land in the upper folder, the real
// folder is untouched, and .git is written through.
func TestOverlayFolderKeepsTheRealOneUntouched(t *testing.T) {
	needLevel(t, LevelFull)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws, upper, work := filepath.Join(root, "ws"), filepath.Join(root, "upper"), filepath.Join(root, "work")
	for _, d := range []string{ws, upper, work} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("original\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "gone.txt"), []byte("x\n"), 0o644)
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s, err := Build(Options{Level: LevelFull, Folders: []Folder{{Path: ws, Upper: upper, Work: work}}, Grace: time.Second}, DefaultLayout())
	if err != nil {
		t.Fatal(err)
	}
	b := &box{t: t, level: LevelFull, ws: ws, out: root, spec: s}
	realBefore := snapshot(t, ws)
	gitEnv := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	out := b.mustRun(`echo changed > keep.txt && echo new > new.txt && rm gone.txt && cat keep.txt && git add keep.txt && git commit -qm through-overlay && echo committed`, gitEnv...)
	if !strings.Contains(out, "changed") || !strings.Contains(out, "committed") {
		t.Errorf("inside, the command did not see its own writes:\n%s", out)
	}
	if got, _ := os.ReadFile(filepath.Join(upper, "new.txt")); string(got) != "new\n" {
		t.Errorf("new.txt is not in the upper folder: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(upper, "keep.txt")); string(got) != "changed\n" {
		t.Errorf("keep.txt is not changed in the upper folder: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(upper, "gone.txt")); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("gone.txt has no whiteout in the upper folder: %v %v", fi, err)
	}
	// The real folder: untouched but for .git, where the commit landed.
	gitNow := filepath.Join(ws, ".git")
	log, _ := exec.Command("git", "-C", ws, "log", "--format=%s").Output()
	if !strings.Contains(string(log), "through-overlay") {
		t.Errorf("the commit did not reach the real .git: %q", log)
	}
	var realLines, beforeLines []string
	for _, line := range strings.Split(snapshot(t, ws), "\n") {
		if !strings.HasPrefix(line, gitNow) {
			realLines = append(realLines, line)
		}
	}
	for _, line := range strings.Split(realBefore, "\n") {
		if !strings.HasPrefix(line, gitNow) {
			beforeLines = append(beforeLines, line)
		}
	}
	if strings.Join(realLines, "\n") != strings.Join(beforeLines, "\n") {
		t.Errorf("the real folder changed outside .git:\nbefore:\n%s\nafter:\n%s", strings.Join(beforeLines, "\n"), strings.Join(realLines, "\n"))
	}
	if _, err := os.Stat(filepath.Join(upper, ".git")); err == nil {
		t.Error(".git went into the upper folder instead of through")
	}
	b.mustFail(`echo x > .git/hooks/pre-commit`)
}

// Reads of the system stay open: the toolchain needs them.
func TestSystemFoldersStayReadable(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		b := newBox(t, l)
		b.mustRun(`cat /etc/hostname /etc/os-release >/dev/null && ls /usr/bin >/dev/null && head -c 8 /dev/urandom | wc -c && echo x > /dev/null`)
	})
}

// The sandbox's instructions come only from an inherited pipe: started
// with the variable alone, the binary does nothing.
func TestInitRefusesWithoutItsPipe(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"3,4", "x", "0,1", ""} {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), initEnv+"="+v)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 126 || err == nil {
			t.Errorf("%s=%q: exit %d, output %q; want 126 and nothing done", initEnv, v, code, out)
		}
	}
	_ = fmt.Sprint()
}

// The control: the same attacks, where they are harmless to try (on the
// test's own files, sockets and processes), do succeed unconfined, so a
// refusal above is the sandbox's doing.
func TestAttacksWorkUnconfined(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	b := &box{t: t, level: LevelNone, ws: filepath.Join(root, "ws"), out: filepath.Join(root, "outside")}
	os.Mkdir(b.ws, 0o755)
	os.Mkdir(b.out, 0o755)
	os.WriteFile(filepath.Join(b.out, "secret"), []byte("SECRET"), 0o644)
	b.mustRun(`echo x > "$OUT/escaped" && cat "$OUT/../outside/secret" && cat /proc/self/root"$OUT/secret"`)
	b.mustRun(`ln -s "$OUT" link && echo y > link/through-link`)
	b.mustRun(`ls /proc/$DAEMON/cwd/ >/dev/null && cat /proc/$DAEMON/environ >/dev/null`)
	host := listen(t, "tcp", "127.0.0.1:0")
	b.mustRun(`curl -sS --max-time 5 http://` + host.Addr().String() + `/`)
	sock := listen(t, "unix", filepath.Join(b.out, "s.sock"))
	b.mustRun(`curl -sS --max-time 5 --unix-socket ` + sock.Addr().String() + ` http://x/`)
	abstract := listen(t, "unix", "@tether-test-"+unique())
	b.mustRun(`curl -sS --max-time 5 --abstract-unix-socket ` + strings.TrimPrefix(abstract.Addr().String(), "@") + ` http://x/`)
	if host.accepted.Load() != 1 || sock.accepted.Load() != 1 || abstract.accepted.Load() != 1 {
		t.Errorf("connections: tcp %d, unix %d, abstract %d; want 1 each", host.accepted.Load(), sock.accepted.Load(), abstract.accepted.Load())
	}
	victim := exec.Command("sleep", "1000")
	victim.Start()
	defer victim.Wait()
	b.mustRun(`kill -9 ` + strconv.Itoa(victim.Process.Pid))
	time.Sleep(0)
}

// An overlay can come with the command instead of the spec, as one
// command's own upper folder (a sandbox started ahead of its command
// does not know it yet): the same holds.
func TestOverlayGivenWithTheCommand(t *testing.T) {
	needLevel(t, LevelFull)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws, upper, work := filepath.Join(root, "ws"), filepath.Join(root, "upper"), filepath.Join(root, "work")
	for _, d := range []string{ws, upper, work} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("original\n"), 0o644)
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s, err := Build(Options{Level: LevelFull, Folders: []Folder{{Path: ws}}, Grace: time.Second}, DefaultLayout())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Dir = ws
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	l, err := s.Prepare(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l.Launched()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	err = l.Run(Command{Path: "/bin/bash", Args: []string{"bash", "-c", "echo changed > keep.txt && echo new > new.txt && git add -A && git commit -qm overlaid && cat keep.txt && echo x > .git/hooks/pre-commit"},
		Dir: ws, Env: env, Overlays: []Folder{{Path: ws, Upper: upper, Work: work}}})
	if err == nil {
		err = l.Started()
	}
	if err != nil {
		cmd.Wait()
		t.Fatalf("%v\n%s", err, out.String())
	}
	cmd.Wait()
	e := l.Finish()
	if e.ExitCode == 0 || !strings.Contains(out.String(), "changed") {
		t.Errorf("the hook was written, or the command did not see its own write: %+v\n%s", e, out.String())
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "keep.txt")); string(got) != "original\n" {
		t.Errorf("the real folder changed: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(upper, "new.txt")); string(got) != "new\n" {
		t.Errorf("new.txt is not in the upper folder: %q", got)
	}
	if log, _ := exec.Command("git", "-C", ws, "log", "--format=%s").Output(); !strings.Contains(string(log), "overlaid") {
		t.Errorf("the commit did not go through to the real .git: %q", log)
	}
}

// At the full level a command may list any folder: ls / and find work,
// and what the hidden folders hold is not there to list.
func TestFullLevelListsFolders(t *testing.T) {
	needLevel(t, LevelFull)
	home := DefaultLayout().Home
	name := ".tether-listed-" + unique()
	if home == "" || os.WriteFile(filepath.Join(home, name), []byte("x"), 0o600) != nil {
		t.Skip("cannot write in the home folder")
	}
	defer os.Remove(filepath.Join(home, name))
	b := newBox(t, LevelFull)
	out := b.mustRun(`ls / >/dev/null && ls -a "$HOME" && find /usr/bin -maxdepth 0`)
	if strings.Contains(out, name) {
		t.Errorf("a file of the home folder was listed:\n%s", out)
	}
}
