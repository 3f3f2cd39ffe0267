//go:build !unix

package rpctest

import (
	"os"
	"os/exec"
)

// ownGroup does nothing where there are no process groups; the tests that
// look for survivors by group run on Unix.
func ownGroup(*exec.Cmd) {}

// Kill ends the daemon.
func (d *Daemon) Kill() {
	_ = d.Cmd.Process.Kill()
	<-d.waited
	d.stdin.Close()
}

// GroupAlive reports whether the daemon itself still runs: without process
// groups, its children cannot be found this way.
func (d *Daemon) GroupAlive() bool {
	select {
	case <-d.waited:
		return false
	default:
		return true
	}
}

// ProcessAlive reports whether pid exists.
func ProcessAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

// Reaped reports that pid is gone.
func Reaped(pid int) bool { return !ProcessAlive(pid) }
