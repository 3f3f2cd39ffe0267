package rpctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Build compiles cmd/tether into dir and returns the binary's path.
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "tether")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/tether-dev/tether/cmd/tether")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// Daemon is a running `tether serve` and a client connected to it over its
// stdin and stdout.
type Daemon struct {
	*Client
	Cmd    *exec.Cmd
	stderr *SyncBuffer
	stdin  *os.File
	waited chan struct{}
	err    error
}

// Start runs `bin serve` with env added to this process's environment, in
// a process group of its own (so a test can tell whether anything it
// started outlives it), and connects a client that answers the daemon's
// calls with handle.
func Start(ctx context.Context, bin string, env []string, handle Handler) (*Daemon, error) {
	// Plain pipes rather than Cmd's: Cmd.Wait would close the reading end
	// of stdout, racing the client for the daemon's last frames.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	d := &Daemon{stderr: &SyncBuffer{}, stdin: inW, waited: make(chan struct{})}
	d.Cmd = exec.Command(bin, "serve")
	d.Cmd.Env = append(os.Environ(), env...)
	d.Cmd.Stdin, d.Cmd.Stdout, d.Cmd.Stderr = inR, outW, d.stderr
	ownGroup(d.Cmd)
	err = d.Cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	d.Client = NewClient(ctx, outR, inW, handle)
	go func() {
		d.err = d.Cmd.Wait()
		close(d.waited)
	}()
	return d, nil
}

// Pid is the daemon's process id (and its process group's).
func (d *Daemon) Pid() int { return d.Cmd.Process.Pid }

// Stderr is everything the daemon wrote to stderr so far.
func (d *Daemon) Stderr() string { return d.stderr.String() }

// Exited is closed when the daemon process has ended.
func (d *Daemon) Exited() <-chan struct{} { return d.waited }

// CloseStdin closes the daemon's stdin: the end of its input.
func (d *Daemon) CloseStdin() error { return d.stdin.Close() }

// Wait waits for the daemon to exit and returns its exit status.
func (d *Daemon) Wait(ctx context.Context) (int, error) {
	select {
	case <-d.waited:
	case <-ctx.Done():
		return -1, fmt.Errorf("the daemon did not exit: %w", ctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(d.err, &exit) {
		return exit.ExitCode(), nil
	}
	return d.Cmd.ProcessState.ExitCode(), d.err
}

// SyncBuffer is a bytes.Buffer safe to write from one goroutine (a
// process's stderr copier, a logger) while a test reads it from another.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
