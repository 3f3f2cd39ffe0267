// Package project names the per-project folders Tether keeps outside the
// workspace: undo checkpoints under the XDG state directory, saved
// permissions under the XDG config directory, project memory under the XDG
// data directory.
//
// A project is identified by its folder's real path. The key is readable
// (the folder's name comes first, so a person browsing the state directory
// can tell projects apart) and unique (a short hash of the full path, so two
// folders with the same name never share a store).
package project

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/adrg/xdg"
)

// maxNameRunes bounds the readable part of a key, so that deep state paths
// stay well under file-name limits.
const maxNameRunes = 48

// Key returns the folder key of the project rooted at root: the folder's
// base name made safe for a file name, a dash, and 8 hex digits of the
// SHA-256 of its absolute real path.
func Key(root string) string {
	real := realPath(root)
	sum := sha256.Sum256([]byte(real))
	return sanitize(filepath.Base(real)) + "-" + hex.EncodeToString(sum[:4])
}

// StateDir is where the project's machine-written state lives (undo
// checkpoints): $XDG_STATE_HOME/tether/projects/<key>.
func StateDir(root string) string {
	return filepath.Join(StateHome(), "tether", "projects", Key(root))
}

// ConfigDir is where the project's user decisions live (saved approvals):
// $XDG_CONFIG_HOME/tether/projects/<key>.
func ConfigDir(root string) string {
	return filepath.Join(ConfigHome(), "tether", "projects", Key(root))
}

// StateHome is $XDG_STATE_HOME (default ~/.local/state).
func StateHome() string { return baseDir("XDG_STATE_HOME", xdg.StateHome) }

// ConfigHome is $XDG_CONFIG_HOME (default ~/.config).
func ConfigHome() string { return baseDir("XDG_CONFIG_HOME", xdg.ConfigHome) }

// DataHome is $XDG_DATA_HOME (default ~/.local/share).
func DataHome() string { return baseDir("XDG_DATA_HOME", xdg.DataHome) }

// DataDir is where the project's durable data lives (project memory):
// $XDG_DATA_HOME/tether/projects/<key>.
func DataDir(root string) string {
	return filepath.Join(DataHome(), "tether", "projects", Key(root))
}

// baseDir reads the variable now rather than trusting xdg's copy, which is
// taken once at program start: tests and long-lived daemons whose
// environment is changed on purpose must see the current value. The XDG
// specification says a relative value is invalid and must be ignored.
func baseDir(env, fallback string) string {
	if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
		return v
	}
	return fallback
}

// realPath makes root absolute and resolves its symlinks, so that the same
// folder reached through a link or a relative path gets the same key. A
// folder that does not exist (yet) is keyed by its clean absolute path.
func realPath(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// sanitize keeps letters, digits, '.', '_' and '-' and turns every other run
// of characters into one '-'. Leading dots go too, so that no key is a
// hidden file or "..". An empty result (the file system root) becomes "root".
func sanitize(name string) string {
	var b strings.Builder
	n, dash := 0, false
	for _, r := range name {
		if n == maxNameRunes {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			n, dash = n+1, false
			continue
		}
		if !dash {
			b.WriteByte('-')
			n, dash = n+1, true
		}
	}
	s := strings.TrimRight(strings.TrimLeft(b.String(), ".-"), "-")
	if s == "" {
		return "root"
	}
	return s
}
