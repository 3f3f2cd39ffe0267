//go:build unix

package approvals

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tether-dev/tether/internal/project"
)

// maxSocketPath keeps a socket's path within the smallest sun_path of the
// systems Tether runs on (104 bytes on macOS, 108 on Linux).
const maxSocketPath = 100

// Address is where the project rooted at root takes its questions: a
// socket in the user's owner-only runtime folder. The folders are made
// (0700) and checked: a folder that is not the user's, or that others may
// enter, is never used.
func Address(root string) (string, error) {
	name := project.Key(root) + ".sock"
	if base := runtimeBase(); usableBase(base) {
		dir := filepath.Join(base, "tether")
		if err := ownerOnlyDir(dir); err != nil {
			return "", err
		}
		if p := filepath.Join(dir, name); len(p) <= maxSocketPath {
			return p, nil
		}
	}
	// No runtime folder (a container, a system without a login manager),
	// or one whose path leaves no room: an owner-only folder of our own in
	// the temporary folder, checked before use since others can write
	// there.
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("tether-%d", os.Getuid()))
	if err := ownerOnlyDir(dir); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if len(p) > maxSocketPath {
		sum := sha256.Sum256([]byte(name))
		p = filepath.Join(dir, hex.EncodeToString(sum[:8])+".sock")
	}
	return p, nil
}

// usableBase reports whether base is a folder of the user's own.
func usableBase(base string) bool {
	if base == "" {
		return false
	}
	fi, err := os.Stat(base)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// ownerOnlyDir makes dir (mode 0700) or checks the one there: a real
// folder, not a link, owned by this user and closed to everyone else.
func ownerOnlyDir(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errNotOwnerOnly(dir, "it is not a folder")
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return errNotOwnerOnly(dir, "it belongs to another user")
	}
	if fi.Mode().Perm() != 0o700 {
		// Ours, but opened up (by hand, or a umask at creation): close it.
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
}
