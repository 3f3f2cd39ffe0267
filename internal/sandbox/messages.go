package sandbox

import "time"

// The daemon tells the init two things, one after the other, on the same
// pipe: how to confine (setupMessage), then what to run (runMessage). The
// init sets up all it can from the first while the second has not come:
// a sandbox started ahead of its command (see Launch) is then ready
// sooner.

// maxMessage bounds each message: a pipe holds 64 KiB, and the daemon
// may write both before the init reads either.
const maxMessage = 30 << 10

// setupMessage is how to confine.
type setupMessage struct {
	Spec Spec `json:"spec"`
}

// runMessage is the command to run: the shell, its arguments, its
// working folder and environment; the grace its leftovers get; and the
// folders seen through an overlay for this command alone (full level).
type runMessage struct {
	Path     string        `json:"path"`
	Args     []string      `json:"args"`
	Dir      string        `json:"dir"`
	Env      []string      `json:"env"`
	Grace    time.Duration `json:"grace,omitempty"`
	Overlays []Folder      `json:"overlays,omitempty"`
}

// statusMessage is one line the init reports, as JSON.
type statusMessage struct {
	// Ready: the confinement is in place and the command started.
	Ready bool `json:"ready,omitempty"`
	// Landlock is the Landlock ABI the confinement used, 0 for none.
	Landlock int `json:"landlock,omitempty"`
	// Error says why the confinement could not be set up (or the command
	// not started); nothing ran.
	Error string `json:"error,omitempty"`
	// Done: the command ended (full level only; at the landlock level the
	// init is the command).
	Done bool `json:"done,omitempty"`
	// ExitCode, or Signal when a signal ended the shell.
	ExitCode int `json:"exitCode,omitempty"`
	Signal   int `json:"signal,omitempty"`
	// Leftovers counts the processes still running when the shell ended,
	// which the init then stopped.
	Leftovers int `json:"leftovers,omitempty"`
}
