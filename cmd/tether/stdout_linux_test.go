package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
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

// TestReserveStdinTakesThePipe runs itself as a child whose stdin is a
// pipe: after reserveStdin, the reserved file reads the pipe through the
// poller (a read deadline works only there), and descriptor 0 reads
// nothing.
func TestReserveStdinTakesThePipe(t *testing.T) {
	if os.Getenv("TETHER_RESERVE_STDIN_CHILD") == "1" {
		in := reserveStdin()
		if in == os.Stdin {
			fmt.Println("not reserved")
			os.Exit(1)
		}
		if err := in.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			fmt.Println("not in the poller:", err)
			os.Exit(1)
		}
		data, err := io.ReadAll(in)
		rest, _ := io.ReadAll(os.Stdin)
		fmt.Printf("%s|%v|%q", data, err, rest)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReserveStdinTakesThePipe$")
	cmd.Env = append(os.Environ(), "TETHER_RESERVE_STDIN_CHILD=1")
	cmd.Stdin = strings.NewReader("frame bytes") // a pipe, fed by exec
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if got := stdout.String(); got != `frame bytes|<nil>|""` {
		t.Errorf("child read %q", got)
	}
}
