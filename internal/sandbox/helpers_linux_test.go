package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var (
	probeOnce sync.Once
	probed    Status
)

// machine is what this machine passes, probed once for all tests.
func machine(t *testing.T) Status {
	t.Helper()
	probeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		probed = Probe(ctx, "")
	})
	return probed
}

// needLevel skips a test at a level this machine does not pass; the full
// level implies Landlock only where the kernel has it.
func needLevel(t *testing.T, l Level) {
	t.Helper()
	st := machine(t)
	switch {
	case l == LevelFull && st.Level != LevelFull:
		t.Skipf("this machine has no full sandbox: %s", st.Why)
	case l == LevelLandlock && st.LandlockABI < minLandlockABI:
		t.Skipf("this machine has no usable Landlock (ABI %d)", st.LandlockABI)
	}
}

// levels are the confining levels every attack is tried at.
var levels = []Level{LevelFull, LevelLandlock}

// box runs commands confined at one level, in a workspace of its own,
// beside a folder outside it that the test owns.
type box struct {
	t       *testing.T
	level   Level
	ws, out string
	spec    Spec
	// last is how the last command ended, as its launch reported it.
	last Exit
}

type boxOption func(*Options, *Layout)

func withNetwork(o *Options, _ *Layout) { o.Network = true }

func withLayout(edit func(*Layout)) boxOption { return func(_ *Options, l *Layout) { edit(l) } }

func newBox(t *testing.T, level Level, opts ...boxOption) *box {
	t.Helper()
	needLevel(t, level)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &box{t: t, level: level, ws: filepath.Join(root, "ws"), out: filepath.Join(root, "outside")}
	for _, d := range []string{b.ws, b.out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o := Options{Level: level, Folders: []Folder{{Path: b.ws}}, Grace: 200 * time.Millisecond}
	l := DefaultLayout()
	for _, opt := range opts {
		opt(&o, &l)
	}
	if b.spec, err = Build(o, l); err != nil {
		t.Fatal(err)
	}
	return b
}

// run runs a bash command line in the box, in the workspace, with env
// added; it returns the combined output and the exit code.
func (b *box) run(command string, env ...string) (string, int) {
	b.t.Helper()
	cmd := exec.Command("/bin/bash", "-c", command)
	cmd.Dir = b.ws
	cmd.Env = append(append(os.Environ(), "WS="+b.ws, "OUT="+b.out, fmt.Sprintf("DAEMON=%d", os.Getpid())), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	l, err := b.spec.Wrap(cmd)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		l.Close()
		b.t.Fatal(err)
	}
	if err := l.Started(); err != nil {
		_ = cmd.Wait()
		b.t.Fatalf("%s: %v\n%s", b.level, err, out.String())
	}
	werr := cmd.Wait()
	e := l.Finish()
	b.last = e
	code := 0
	switch {
	case e.Known && e.Signal != 0:
		code = 128 + e.Signal
	case e.Known:
		code = e.ExitCode
	case werr != nil:
		code = cmd.ProcessState.ExitCode()
	}
	return out.String(), code
}

// mustFail runs a command that must not succeed.
func (b *box) mustFail(command string, env ...string) string {
	b.t.Helper()
	out, code := b.run(command, env...)
	if code == 0 {
		b.t.Errorf("%s: %q succeeded; output:\n%s", b.level, command, out)
	}
	return out
}

// mustRun runs a command that must succeed.
func (b *box) mustRun(command string, env ...string) string {
	b.t.Helper()
	out, code := b.run(command, env...)
	if code != 0 {
		b.t.Errorf("%s: %q failed with exit code %d; output:\n%s", b.level, command, code, out)
	}
	return out
}

// snapshot is the names, modes, sizes and contents of everything under
// dir, to show that nothing there changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v %d", p, fi.Mode(), fi.Size())
		switch {
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// unchanged fails the test if dir is not as snap recorded it.
func unchanged(t *testing.T, what, dir, snap string) {
	t.Helper()
	if now := snapshot(t, dir); now != snap {
		t.Errorf("%s changed:\nbefore:\n%s\nafter:\n%s", what, snap, now)
	}
}

// listener counts the connections made to it.
type listener struct {
	net.Listener
	accepted atomic.Int32
	done     chan struct{}
}

func listen(t *testing.T, network, addr string) *listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{Listener: ln, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.accepted.Add(1)
			// Read the request before answering: closing first would
			// make the client report a failed connection.
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 4096)
			var req []byte
			for !bytes.Contains(req, []byte("\r\n\r\n")) {
				n, err := c.Read(buf)
				req = append(req, buf[:n]...)
				if err != nil {
					break
				}
			}
			c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\nreached\n"))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-l.done })
	return l
}

// fileHash is a file's content hash, "" when it cannot be read.
func fileHash(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}
