//go:build !unix

package search

import "os/exec"

// ownGroup leaves the default: cancellation kills ripgrep itself, which
// starts no children of its own.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills ripgrep.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
