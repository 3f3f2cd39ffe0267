package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/children"
	"github.com/tether-dev/tether/internal/sandbox"
)

// markerVar is the environment variable that tags every process a command
// starts, so that the ones that leave its process group can still be found.
const markerVar = "TETHER_SHELL"

// noPrompts makes the usual prompters fail at once instead of waiting for
// an answer nobody can give: stdin is closed and the terminal is not theirs.
var noPrompts = []string{"GIT_TERMINAL_PROMPT=0", "DEBIAN_FRONTEND=noninteractive"}

// DefaultGrace is how long a command gets between SIGTERM and SIGKILL: long
// enough for a test runner to remove its temporary files.
const DefaultGrace = 2 * time.Second

// drainWait is how long output may keep flowing after every process of the
// command is gone. A pipe reaches end-of-file as soon as its last writer
// exits, so this only runs out when a process out of reach still holds it.
const drainWait = 250 * time.Millisecond

// killWait bounds the wait after SIGKILL, which a process in uninterruptible
// sleep may not act on at once; the runner does not hang on such a process.
const killWait = time.Second

// Spec is one command to run.
type Spec struct {
	// Command is the command line, run with the platform's shell (see
	// FindShell and Dialect).
	Command string
	// Dir is the working directory.
	Dir string
	// Shell is the shell binary; empty means FindShell.
	Shell string
	// Timeout stops the command after this long; zero means no limit.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero means DefaultGrace.
	Grace time.Duration
	// Env is added to the daemon's environment (KEY=VALUE).
	Env []string
	// Marker tags the command's processes; empty means a fresh random one.
	Marker string
	// Detaches says the command may start processes that leave its
	// process group (setsid, nohup, a daemon): when it ends they are looked
	// for by marker too, which costs a read of every process's
	// environment.
	Detaches bool

	// Sandbox, when set, confines the command (see package sandbox); its
	// level may be none. Nil runs it as it is.
	Sandbox *sandbox.Spec
	// Overlays are the workspace folders this command alone sees through
	// an overlay, each with its own upper and work folders: what it
	// writes there lands in the upper folder (the full level only).
	Overlays []sandbox.Folder

	// jobs is the manager the command runs under, if any: its cgroup and
	// its record of running process groups.
	jobs *Jobs
}

// StopReason says why a command ended.
type StopReason int

const (
	// Exited: the command ended by itself.
	Exited StopReason = iota
	// TimedOut: the command's own timeout fired.
	TimedOut
	// Cancelled: the context was cancelled or reached its deadline; Outcome.Cause says which.
	Cancelled
)

// Outcome is how a command ended.
type Outcome struct {
	// ExitCode is the shell's exit status; -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the shell, if one did.
	Signal string
	Stop   StopReason
	// Cause is the context's cause when Stop is Cancelled.
	Cause error
	// Timeout is the timeout that applied.
	Timeout time.Duration
	Elapsed time.Duration
	// Leftovers counts processes the command left running when it ended,
	// which the runner then stopped.
	Leftovers int
	// OutputHeld is set when some process the runner could not find kept
	// the output open after the command ended; reading was abandoned.
	OutputHeld bool
	// Sandbox is the level the command ran at (none when it was not
	// confined), and LandlockABI the Landlock ABI its confinement used.
	Sandbox     sandbox.Level
	LandlockABI int
	// SandboxError says why a confined command could not be started after
	// its sandbox was set up (the shell missing inside it).
	SandboxError string
	// GitRestored lists the git hooks and configuration a confined command
	// changed, which were put back (see package sandbox).
	GitRestored []string
}

// Process is a started command.
type Process struct {
	spec    Spec
	cmd     *exec.Cmd
	pgid    int
	started time.Time
	out     *os.File
	waited  chan struct{}
	copied  chan struct{}
	// tree is what the platform keeps to find and stop every process of
	// the command (a Job Object on Windows).
	tree tree
	// launch is the command's sandbox, nil when it runs unconfined.
	launch *sandbox.Launch
	// ended, when set, runs once the command has ended and Wait reported
	// it.
	ended func()
}

// ErrUnsupported is returned where commands cannot be supervised.
var ErrUnsupported = errors.New("running commands needs process groups (Unix) or Job Objects (Windows); this system has neither")

// Start runs spec's command with its combined stdout and stderr written to
// sink, in its own process group (a Job Object on Windows), with stdin
// closed.
func Start(spec Spec, sink io.Writer) (*Process, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	if spec.Shell == "" {
		sh, err := FindShell()
		if err != nil {
			return nil, err
		}
		spec.Shell = sh
	}
	if spec.Grace <= 0 {
		spec.Grace = DefaultGrace
	}
	if spec.Marker == "" {
		spec.Marker = NewMarker()
	}
	prepareTree()
	if p, ok := spec.jobs.startWarm(spec, sink); ok {
		return p, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("cannot create the output pipe: %w", err)
	}
	cmd := exec.Command(spec.Shell, shellArgs(spec.Command)...)
	cmd.Dir = spec.Dir
	cmd.Env = commandEnv(spec)
	// Handing the pipe's write end to both streams as an *os.File makes
	// exec pass the descriptor straight through, with no copying goroutine
	// of its own: Wait then returns when the shell exits, even while
	// something it left behind still holds the pipe.
	cmd.Stdout, cmd.Stderr = w, w
	started := time.Now()
	var launch *sandbox.Launch
	if spec.Sandbox != nil {
		if launch, err = spec.Sandbox.Wrap(cmd, spec.Overlays...); err != nil {
			w.Close()
			r.Close()
			return nil, err
		}
	}
	cmd, t, err := startTree(cmd, spec)
	w.Close()
	if err != nil {
		r.Close()
		launch.Close()
		return nil, startError(spec, err)
	}
	if err := launch.Started(); err != nil {
		// Nothing of the command ran; the sandbox's first process is
		// ending (or stuck in its set-up) and is reaped here.
		reap(cmd, t, launch)
		r.Close()
		return nil, err
	}
	return newProcess(spec, cmd, t, launch, r, started, sink), nil
}

// commandEnv is a command's environment: the daemon's, the variables that
// keep prompters from waiting, the spec's own, and its marker.
func commandEnv(spec Spec) []string {
	return append(append(append(os.Environ(), noPrompts...), spec.Env...), markerVar+"="+spec.Marker)
}

// reap ends a started process that runs nothing of a command (a sandbox
// whose set-up failed, or one started ahead and not needed) and waits
// for it.
func reap(cmd *exec.Cmd, t tree, launch *sandbox.Launch) {
	launch.Close()
	signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	children.Done(cmd.Process.Pid)
	t.release()
}

// newProcess supervises a started command: it copies the output from r to
// sink and waits for the process.
func newProcess(spec Spec, cmd *exec.Cmd, t tree, launch *sandbox.Launch, r *os.File, started time.Time, sink io.Writer) *Process {
	p := &Process{
		spec: spec, cmd: cmd, pgid: cmd.Process.Pid, started: started, out: r, tree: t, launch: launch,
		waited: make(chan struct{}), copied: make(chan struct{}),
	}
	markLive(spec.Marker, +1)
	spec.jobs.noteGroup(p, true)
	go func() {
		defer close(p.copied)
		buf := make([]byte, 64<<10)
		_, _ = io.CopyBuffer(sink, r, buf)
		r.Close()
	}()
	go func() {
		defer close(p.waited)
		// The exit status is read from ProcessState; the error adds nothing.
		_ = cmd.Wait()
		children.Done(cmd.Process.Pid)
	}()
	return p
}

// Pid is the shell's process id, which is also its process group id.
func (p *Process) Pid() int { return p.pgid }

// Wait supervises the command until it ends, its timeout fires or ctx is
// done, then makes sure nothing it started is left running and all its
// output has been written to the sink.
func (p *Process) Wait(ctx context.Context) Outcome {
	out := Outcome{Timeout: p.spec.Timeout}
	var expired <-chan time.Time
	if p.spec.Timeout > 0 {
		t := time.NewTimer(p.spec.Timeout - time.Since(p.started))
		defer t.Stop()
		expired = t.C
	}
	// The reason is fixed here, when the command is stopped, not after it
	// is reaped: a slow reap that outlasts another deadline must still
	// report the one that actually fired.
	select {
	case <-p.waited:
	case <-expired:
		out.Stop = TimedOut
	case <-ctx.Done():
		out.Stop, out.Cause = Cancelled, context.Cause(ctx)
	}
	if out.Stop != Exited && p.exited() {
		out.Stop, out.Cause = Exited, nil
	}
	if out.Stop != Exited {
		p.terminate(true)
	}
	<-p.waited
	// Whatever the command started is stopped even when the shell ended by
	// itself: what it started in the background (`server &`, `nohup x &`)
	// would otherwise outlive the call, keep the output pipe open so the
	// call never returns, and run on with nobody watching. Long-running
	// processes belong in background jobs, which are supervised.
	out.Leftovers = p.terminate(p.spec.Detaches)
	found, held := p.drain()
	out.Leftovers += found
	out.OutputHeld = held
	out.Elapsed = time.Since(p.started)
	out.ExitCode, out.Signal = exitStatus(p.cmd.ProcessState)
	if p.launch != nil {
		out.Sandbox, out.LandlockABI = p.launch.Level(), p.launch.LandlockABI()
		e := p.launch.Finish()
		if e.Known {
			out.ExitCode, out.Signal = e.ExitCode, ""
			if e.Signal != 0 {
				out.ExitCode, out.Signal = -1, signalName(syscall.Signal(e.Signal))
			}
			out.Leftovers += e.Leftovers
		} else if e.Error != "" {
			out.SandboxError = e.Error
		}
		out.GitRestored = e.Restored
	} else {
		out.Sandbox = sandbox.LevelNone
	}
	markLive(p.spec.Marker, -1)
	p.spec.jobs.noteGroup(p, false)
	p.tree.release()
	if p.ended != nil {
		p.ended()
	}
	return out
}

func (p *Process) exited() bool {
	select {
	case <-p.waited:
		return true
	default:
		return false
	}
}

// drain waits for the output to reach end-of-file. When it does not, a
// process the first sweep missed still holds the pipe: everything of the
// command is looked for again and stopped, and if that does not free the
// pipe it is closed on our side so the call can return. It reports how
// many processes it stopped, and whether it had to give up on the output.
func (p *Process) drain() (found int, held bool) {
	timer := time.NewTimer(drainWait)
	defer timer.Stop()
	select {
	case <-p.copied:
		return 0, false
	case <-timer.C:
	}
	if !p.spec.Detaches {
		found = p.terminate(true)
		timer.Reset(drainWait)
		select {
		case <-p.copied:
			return found, false
		case <-timer.C:
		}
	}
	p.out.Close()
	<-p.copied
	return found, true
}

// startError explains why a command could not start.
func startError(spec Spec, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(spec.Dir); spec.Dir != "" && serr != nil {
			return fmt.Errorf("the working folder %s does not exist", spec.Dir)
		}
		return fmt.Errorf("the shell %s does not exist", spec.Shell)
	}
	return fmt.Errorf("cannot start %s: %w", spec.Shell, err)
}

// NewMarker makes a random tag for one command's processes.
func NewMarker() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run starts a command, supervises it until it ends, and returns how it
// ended; its output goes to sink.
func Run(ctx context.Context, spec Spec, sink io.Writer) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{Stop: Cancelled, Cause: context.Cause(ctx)}, nil
	}
	p, err := Start(spec, sink)
	if err != nil {
		return Outcome{}, err
	}
	return p.Wait(ctx), nil
}
