package rpctest

import (
	"os/exec"

	"golang.org/x/sys/windows"
)

// ownGroup leaves the default: Windows has no process groups to signal.
func ownGroup(*exec.Cmd) {}

// Kill ends the daemon (its Job Objects take its commands with them).
func (d *Daemon) Kill() {
	_ = d.Cmd.Process.Kill()
	<-d.waited
	d.stdin.Close()
}

// KillDaemon is Kill: the daemon alone, as a crash would end it.
func (d *Daemon) KillDaemon() { d.Kill() }

// GroupAlive reports whether the daemon still runs.
func (d *Daemon) GroupAlive() bool { return ProcessAlive(d.Pid()) }

// ProcessAlive reports whether pid runs.
func ProcessAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// Reaped reports that pid is gone.
func Reaped(pid int) bool { return !ProcessAlive(pid) }
