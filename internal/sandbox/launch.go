package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// Launch is a command started confined: what the caller keeps to learn
// whether the confinement was set up, and how the command ended.
type Launch struct {
	level Level
	// spec is the write end of the init's instructions, open until the
	// command is sent; status is the read end of the init's status pipe;
	// childEnds are the descriptors only the child needs, closed once it
	// started.
	spec      *os.File
	status    *os.File
	lines     *bufio.Reader
	childEnds []*os.File
	// tempDir is the private temporary folder of a landlock-level
	// command, removed when it ends.
	tempDir string
	// landlock is the ABI the init applied.
	landlock int
	// guard keeps the workspace's git hooks and configuration as they
	// were (see gitGuard).
	guard *gitGuard
}

// Level is the level the command runs at.
func (l *Launch) Level() Level {
	if l == nil {
		return LevelNone
	}
	return l.level
}

// LandlockABI is the Landlock ABI the confinement used, 0 for none.
func (l *Launch) LandlockABI() int {
	if l == nil {
		return 0
	}
	return l.landlock
}

// Exit is how a confined command ended, as its init saw it.
type Exit struct {
	// Known is set when the init reported the end (full level); otherwise
	// the process's own exit status is the command's.
	Known    bool
	ExitCode int
	// Signal is the signal that ended the shell, 0 if none.
	Signal int
	// Leftovers counts the processes still running when the shell ended,
	// which the init stopped.
	Leftovers int
	// Error is set when the command could not be started after all.
	Error string
	// Restored lists the git hooks and configuration the command changed,
	// which were put back as they were.
	Restored []string
}

// setupTimeout bounds the wait for the init to set up: a mount that hangs
// (a dead network file system) must not hang the call.
const setupTimeout = 30 * time.Second

// ErrSetup wraps every failure to set up the sandbox.
var ErrSetup = errors.New("the sandbox could not be set up")

// A nil *Launch stands for a command run unconfined: its methods do
// nothing.

// Command is what a prepared sandbox runs (see Spec.Prepare): the program
// (the shell) with its arguments, working folder and whole environment;
// the grace what it leaves behind gets between SIGTERM and SIGKILL; and
// the workspace folders seen through an overlay for this command alone
// (the full level only), each with its own upper and work folders.
type Command struct {
	Path     string
	Args     []string
	Dir      string
	Env      []string
	Grace    time.Duration
	Overlays []Folder
}

// Launched closes, once the init has started, the descriptors only it
// needed.
func (l *Launch) Launched() {
	if l == nil {
		return
	}
	for _, f := range l.childEnds {
		f.Close()
	}
	l.childEnds = nil
}

// Run hands the command to the init, which then confines and starts it;
// Started says when it has.
func (l *Launch) Run(c Command) error {
	if l == nil || l.spec == nil {
		return nil
	}
	b, err := json.Marshal(runMessage{Path: c.Path, Args: c.Args, Dir: c.Dir, Env: c.Env, Grace: c.Grace, Overlays: c.Overlays})
	if err != nil {
		return err
	}
	if len(b) > maxMessage {
		return fmt.Errorf("%w: the command and its environment are too long (%d bytes)", ErrSetup, len(b))
	}
	_, err = l.spec.Write(append(b, '\n'))
	l.spec.Close()
	l.spec = nil
	if err != nil {
		return fmt.Errorf("%w: handing the command over: %v", ErrSetup, err)
	}
	return nil
}

// Started waits, once the process has started, for the init to report
// that the confinement is in place and the command running. An error
// means nothing ran; the caller still reaps the process.
func (l *Launch) Started() error {
	if l == nil {
		return nil
	}
	l.Launched()
	if l.status == nil {
		return nil // nothing reports: sandbox-exec applies the profile itself
	}
	_ = l.status.SetReadDeadline(time.Now().Add(setupTimeout))
	defer l.status.SetReadDeadline(time.Time{})
	m, err := l.next()
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%w: its first process did not report within %s", ErrSetup, setupTimeout)
	case err != nil:
		return fmt.Errorf("%w: its first process ended before it started the command", ErrSetup)
	case m.Error != "":
		return fmt.Errorf("%w: %s", ErrSetup, m.Error)
	case !m.Ready:
		return fmt.Errorf("%w: its first process reported something unexpected", ErrSetup)
	}
	l.landlock = m.Landlock
	return nil
}

// Finish reads, once the process has ended, how the command ended, and
// releases what the launch holds.
func (l *Launch) Finish() Exit {
	var e Exit
	if l == nil {
		return e
	}
	for l.status != nil {
		m, err := l.next()
		if err != nil {
			break
		}
		if m.Error != "" {
			e.Error = m.Error
		}
		if m.Done {
			e.Known, e.ExitCode, e.Signal, e.Leftovers = true, m.ExitCode, m.Signal, m.Leftovers
		}
	}
	e.Restored = l.guard.restore()
	l.Close()
	return e
}

// Close releases the launch's descriptors and temporary folder.
func (l *Launch) Close() {
	if l == nil {
		return
	}
	l.Launched()
	if l.spec != nil {
		l.spec.Close() // an init still waiting for its command ends
		l.spec = nil
	}
	if l.status != nil {
		l.status.Close()
	}
	if l.tempDir != "" {
		os.RemoveAll(l.tempDir)
		l.tempDir = ""
	}
}

func (l *Launch) next() (statusMessage, error) {
	var m statusMessage
	line, err := l.lines.ReadBytes('\n')
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return m, err
	}
	return m, nil
}
