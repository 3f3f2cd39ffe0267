package approvals

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// ErrNoApprover means nobody listens for the project's questions.
var ErrNoApprover = errors.New("no editor and no tether approvals is listening for this project")

// ErrBusy means another approver already holds the project's channel.
var ErrBusy = errors.New("another approver already answers this project's questions")

// runtimeBase is the user's runtime folder: $XDG_RUNTIME_DIR when it names
// an absolute folder, else xdg's default for the system.
func runtimeBase() string {
	if v := os.Getenv("XDG_RUNTIME_DIR"); v != "" && filepath.IsAbs(v) {
		return v
	}
	return xdg.RuntimeDir
}

// errNotOwnerOnly says a folder cannot hold the channel.
func errNotOwnerOnly(dir, why string) error {
	return fmt.Errorf("%s cannot hold the approvals channel: %s", dir, why)
}
