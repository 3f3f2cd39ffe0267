package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The init side: what runs in the re-executed binary.
//
// The daemon starts its own executable with initEnv naming two inherited
// descriptors: a pipe carrying the instructions (a setupMessage, then a
// runMessage) and a pipe for statusMessages back. Nothing else turns a
// Tether binary into a sandbox init, and an init does nothing but confine
// itself and run what it was told to, so a stray variable gains nobody
// anything.

// initEnv names the descriptors "SPEC,STATUS" in the init's environment.
const initEnv = "_TETHER_SANDBOX_INIT"

func init() {
	fds, ok := os.LookupEnv(initEnv)
	if !ok {
		return
	}
	os.Unsetenv(initEnv)
	os.Exit(initMain(fds))
}

// initMain runs the init and returns its exit status.
func initMain(fds string) int {
	specFD, statusFD, ok := parseFDs(fds)
	if !ok {
		fmt.Fprintln(os.Stderr, "tether: this process was started as a sandbox without its instructions; it does nothing")
		return 126
	}
	status := os.NewFile(uintptr(statusFD), "sandbox-status")
	unix.CloseOnExec(statusFD)
	unix.CloseOnExec(specFD)
	report := func(m statusMessage) {
		b, _ := json.Marshal(m)
		_, _ = status.Write(append(b, '\n'))
	}
	in := json.NewDecoder(io.LimitReader(os.NewFile(uintptr(specFD), "sandbox-spec"), 2*maxMessage))
	var setup setupMessage
	if err := in.Decode(&setup); err != nil {
		report(statusMessage{Error: "reading the sandbox's instructions: " + err.Error()})
		return 126
	}
	switch setup.Spec.Level {
	case LevelFull:
		return runFull(setup.Spec, in, report)
	case LevelLandlock:
		return runLandlock(setup.Spec, in, report)
	}
	report(statusMessage{Error: fmt.Sprintf("unknown sandbox level %q", setup.Spec.Level)})
	return 126
}

// errDropped: the daemon closed the instructions without sending a
// command; a sandbox started ahead of its command that was not needed.
var errDropped = errors.New("no command came")

// nextRun waits for the command.
func nextRun(in *json.Decoder) (runMessage, error) {
	var m runMessage
	if err := in.Decode(&m); err != nil {
		if errors.Is(err, io.EOF) {
			return m, errDropped
		}
		return m, fmt.Errorf("reading the command to run: %w", err)
	}
	if m.Path == "" || len(m.Args) == 0 {
		return m, errors.New("the sandbox's instructions name no command")
	}
	return m, nil
}

// parseFDs reads "SPEC,STATUS" and checks that both are inherited pipes:
// the instructions cannot come from anywhere else.
func parseFDs(s string) (spec, status int, ok bool) {
	a, b, found := strings.Cut(s, ",")
	spec, err1 := strconv.Atoi(a)
	status, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || spec < 3 || status < 3 || spec == status {
		return 0, 0, false
	}
	var st unix.Stat_t
	if unix.Fstat(spec, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return 0, 0, false
	}
	if unix.Fstat(status, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return 0, 0, false
	}
	return spec, status, true
}

// commandEnv is the command's environment with TMPDIR set to the private
// temporary folder.
func commandEnv(env []string, tmp string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") && !strings.HasPrefix(kv, initEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+tmp)
}

// runLandlock confines this process with Landlock and becomes the
// command: no namespaces, so nothing to supervise.
func runLandlock(s Spec, in *json.Decoder, report func(statusMessage)) int {
	abi := landlockABI()
	if abi < minLandlockABI {
		report(statusMessage{Error: fmt.Sprintf("the kernel's Landlock ABI is %d; the sandbox needs %d or later", abi, minLandlockABI)})
		return 126
	}
	m, err := nextRun(in)
	if errors.Is(err, errDropped) {
		return 0
	}
	if err == nil && len(m.Overlays) > 0 {
		err = errors.New("an overlay needs the full sandbox")
	}
	if err != nil {
		report(statusMessage{Error: err.Error()})
		return 126
	}
	if err := applyLandlock(s, s.TempDir); err != nil {
		report(statusMessage{Error: "applying Landlock: " + err.Error()})
		return 126
	}
	if err := dropPrivileges(); err != nil {
		report(statusMessage{Error: err.Error()})
		return 126
	}
	// Nothing hides the host's Unix sockets at this level.
	if err := refuseUnixSockets(); err != nil && !errors.Is(err, errNoFilter) {
		report(statusMessage{Error: err.Error()})
		return 126
	}
	if err := os.Chdir(m.Dir); err != nil {
		report(statusMessage{Error: fmt.Sprintf("the working folder %s: %v", m.Dir, err)})
		return 126
	}
	report(statusMessage{Ready: true, Landlock: abi})
	err = syscall.Exec(m.Path, m.Args, commandEnv(m.Env, s.TempDir))
	report(statusMessage{Error: fmt.Sprintf("starting %s: %v", m.Path, err)})
	return 127
}

// runFull is the init of the full sandbox: pid 1 of its namespaces. It
// builds the file system and brings up the loopback as soon as it knows
// how to confine; once the command comes, it mounts that command's
// overlays, pivots into the new root, applies Landlock and drops its
// privileges, starts the shell in a session of its own (no controlling
// terminal to push keystrokes into), forwards the signals it gets to
// every process of the sandbox, reaps everything, and when the shell
// ends, stops what the shell left behind and reports how it ended.
func runFull(s Spec, in *json.Decoder, report func(statusMessage)) int {
	fail := func(err error) int {
		report(statusMessage{Error: err.Error()})
		return 126
	}
	if os.Getpid() != 1 {
		return fail(errors.New("the sandbox's first process is not pid 1 of its namespace"))
	}
	// The signals to forward are caught before anything else, so that a
	// SIGTERM during the set-up is not lost on pid 1 (which ignores what
	// it has no handler for).
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGCONT, syscall.SIGCHLD)
	if err := buildRoot(s); err != nil {
		return fail(err)
	}
	if !s.Network {
		if err := loopbackUp(); err != nil {
			return fail(fmt.Errorf("bringing up the loopback: %w", err))
		}
	}
	// No user namespace inside this one (as bubblewrap's --disable-userns):
	// a command has no use for one, and each is a fresh set of
	// capabilities to attack the kernel with.
	_ = os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0)

	m, err := nextRun(in)
	if errors.Is(err, errDropped) {
		return 0
	}
	if err != nil {
		return fail(err)
	}
	if err := pivotRoot(m.Overlays); err != nil {
		return fail(err)
	}
	abi := landlockABI()
	if abi >= minLandlockABI {
		if err := applyLandlock(s, "/tmp"); err != nil {
			return fail(fmt.Errorf("applying Landlock: %w", err))
		}
	} else {
		abi = 0
	}
	if err := dropPrivileges(); err != nil {
		return fail(err)
	}
	// With the host's network, abstract Unix sockets are the host's too;
	// only Landlock's scoping (ABI 6) hides them, else the filter.
	if s.Network && abi < 6 {
		if err := refuseUnixSockets(); err != nil && !errors.Is(err, errNoFilter) {
			return fail(err)
		}
	}
	// Not dumpable: a command cannot trace this process or open its
	// /proc entries (its exe is Tether's own binary).
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("PR_SET_DUMPABLE: %w", err))
	}
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return fail(err)
	}
	pid, err := syscall.ForkExec(m.Path, m.Args, &syscall.ProcAttr{
		Dir:   m.Dir,
		Env:   commandEnv(m.Env, "/tmp"),
		Files: []uintptr{devNull.Fd(), os.Stdout.Fd(), os.Stderr.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	devNull.Close()
	if err != nil {
		return fail(fmt.Errorf("starting %s: %w", m.Path, err))
	}
	// The output belongs to the command now; the init keeps none of it
	// open, so the daemon sees its end when the last process holding it
	// ends.
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		f.Close()
	}
	report(statusMessage{Ready: true, Landlock: abi})

	ws := supervise(pid, sigs)
	done := statusMessage{Done: true}
	if ws.Signaled() {
		done.Signal = int(ws.Signal())
	} else {
		done.ExitCode = ws.ExitStatus()
	}
	grace := m.Grace
	if grace <= 0 {
		grace = s.Grace
	}
	done.Leftovers = stopLeftovers(grace)
	report(done)
	return 0
}

// supervise forwards signals to every process of the sandbox and reaps
// every child until the shell ends, and returns its wait status.
func supervise(shell int, sigs chan os.Signal) syscall.WaitStatus {
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			_ = syscall.Kill(-1, sig.(syscall.Signal))
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err != nil || pid <= 0 {
				break
			}
			if pid == shell {
				return ws
			}
		}
	}
	panic("unreachable")
}

// stopLeftovers stops what the shell left running: SIGTERM to all, then
// grace for them to end; whatever is left dies with this process (the
// kernel kills every process of a pid namespace whose first process
// ends). It returns how many there were.
func stopLeftovers(grace time.Duration) int {
	n := len(sandboxProcs())
	if n == 0 {
		return 0
	}
	_ = syscall.Kill(-1, syscall.SIGTERM)
	_ = syscall.Kill(-1, syscall.SIGCONT)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err != nil || pid <= 0 {
				break
			}
		}
		if len(sandboxProcs()) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// sandboxProcs lists the live processes of the sandbox other than this
// one, from its own /proc.
func sandboxProcs() []int {
	names, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == 1 {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X' {
			out = append(out, pid)
		}
	}
	return out
}
