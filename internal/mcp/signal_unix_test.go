//go:build unix

package mcp_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SIGTERM ends tether mcp at once, running calls included: their
// processes are killed, and it exits cleanly.
func TestSignalStopsRunningCalls(t *testing.T) {
	f := newFixture(t)
	// Unconfined, so the pid the command writes is the host's.
	cmd := exec.Command(tetherBin, "mcp", "--workspace", f.ws, "--mode", "bypass", "--sandbox", "off")
	cmd.Env = f.env
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := newClient(nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: v1125})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "echo $$ > pid; exec sleep 120"}})
	}()
	pid := readPID(t, filepath.Join(f.ws, "pid"))
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	// Close waits for the process, which has exited by itself.
	if err := cs.Close(); err != nil {
		t.Errorf("tether mcp did not exit cleanly on SIGTERM: %v\n%s", err, stderr.String())
	}
}
