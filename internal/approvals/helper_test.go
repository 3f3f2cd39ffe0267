//go:build unix

package approvals

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/protocol"
)

// The tests run the test binary again as a helper process: an approver
// that can be killed, or a peer running as another user.
const (
	helperEnv    = "TETHER_APPROVALS_HELPER"
	helperListen = "listen"    // Listen(root), serve "yes", print the socket's path
	helperAt     = "listen-at" // listenAt(path), serve "yes", print the path
	helperDial   = "dial"      // dialAt(path), say hello, ask; print what came back
)

// helperMain runs the helper when the environment asks for it; it reports
// whether it did.
func helperMain() bool {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return false
	}
	arg := os.Getenv(helperEnv + "_ARG")
	out := func(format string, a ...any) { fmt.Printf(format+"\n", a...) }
	switch mode {
	case helperListen, helperAt:
		var l *Listener
		var err error
		if mode == helperListen {
			l, err = Listen(arg, nil)
		} else {
			var ln net.Listener
			var addr string
			var release func()
			if ln, addr, release, err = listenAt(arg); err == nil {
				l = newListener(ln, addr, release, nil)
			}
		}
		if err != nil {
			out("error %v", err)
			os.Exit(1)
		}
		out("ready %s", l.Addr())
		_ = l.Serve(context.Background(), &fake{answer: protocol.AnswerYes})
	case helperDial:
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := dialAt(ctx, arg)
		if err != nil {
			out("dial-error %v", err)
			os.Exit(0)
		}
		conn, err := hello(ctx, c, hi)
		if err != nil {
			out("hello-error %v", err)
			os.Exit(0)
		}
		res, err := conn.Approve(ctx, protocol.ApprovalRequestParams{Title: "from another user"})
		out("answered %q %v", res.Answer, err)
	}
	os.Exit(0)
	return true
}

type helper struct {
	cmd   *exec.Cmd
	lines *bufio.Scanner
	first string
}

// startHelper runs the helper in mode with arg, as uid (nil: as this user).
// For modes that listen it waits for "ready" and keeps the path.
func startHelper(t *testing.T, mode, arg string, uid *uint32, env ...string) *helper {
	t.Helper()
	bin := os.Args[0]
	if uid != nil {
		bin = copyForAnyone(t, bin)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperEnv+"_ARG="+arg)
	cmd.Env = append(cmd.Env, env...)
	if uid != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: *uid, Gid: *uid}}
		cmd.Dir = filepath.Dir(bin)
	}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
	})
	if !h.lines.Scan() {
		t.Fatalf("the %s helper said nothing", mode)
	}
	h.first = h.lines.Text()
	if (mode == helperListen || mode == helperAt) && !strings.HasPrefix(h.first, "ready ") {
		t.Fatalf("the %s helper: %s", mode, h.first)
	}
	return h
}

// kill kills the helper as a crash would (SIGKILL: nothing of it runs
// after) and returns the socket path it had said it listens on.
func (h *helper) kill(t *testing.T) string {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	return strings.TrimPrefix(h.first, "ready ")
}

// copyForAnyone copies the test binary where another user can run it.
func copyForAnyone(t *testing.T, bin string) string {
	t.Helper()
	dir := openDir(t)
	dst := filepath.Join(dir, "approvals.test")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// openDir is a temporary folder every user may enter and write, and the
// folders above it enterable: where another user's helper works.
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "approvals-other-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}
