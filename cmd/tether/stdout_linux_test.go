package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestReserveStdoutKeepsStrayPrintsOffTheProtocol runs itself as a child
// that prints to os.Stdout after reserveStdout: the print must reach
// stderr, and only what is written to the reserved file reaches stdout.
func TestReserveStdoutKeepsStrayPrintsOffTheProtocol(t *testing.T) {
	if os.Getenv("TETHER_RESERVE_STDOUT_CHILD") == "1" {
		out := reserveStdout()
		fmt.Println("stray print")
		fmt.Fprint(out, "protocol bytes")
		out.Close()
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReserveStdoutKeepsStrayPrintsOffTheProtocol$")
	cmd.Env = append(os.Environ(), "TETHER_RESERVE_STDOUT_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if stdout.String() != "protocol bytes" {
		t.Errorf("stdout = %q, want only the protocol bytes", stdout.String())
	}
	if !bytes.Contains(stderr.Bytes(), []byte("stray print")) {
		t.Errorf("stderr = %q, want the stray print", stderr.String())
	}
}
