//go:build !linux && !darwin

package sandbox

import (
	"context"
	"fmt"
	"os/exec"
)

// Wrap confines nothing here: this system has no sandbox Tether can use.
// A spec that asks for one is an error rather than a command run
// unconfined behind the caller's back.
func (s Spec) Wrap(cmd *exec.Cmd, overlays ...Folder) (*Launch, error) {
	if !s.Level.Confined() {
		return nil, nil
	}
	return nil, fmt.Errorf("%w: this system has no sandbox", ErrSetup)
}

// Probe finds no sandbox here.
func Probe(context.Context, string) Status {
	return Status{Level: LevelNone, Why: "Tether has no sandbox for this system: commands run with all of the user's rights"}
}

// Prepare starts no sandbox ahead of its command here: sandbox-exec
// takes the profile and the command together.
func (s Spec) Prepare(*exec.Cmd) (*Launch, error) {
	return nil, fmt.Errorf("%w: no sandbox is started ahead of its command on this system", ErrSetup)
}
