// Package permission decides, for one tool call, whether it may run, must
// ask the user first, or is refused, from the permission mode and what the
// call touches. The rules live here, in code, never in a prompt.
package permission

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/protocol"
)

// Decision is the outcome for one call.
type Decision int

const (
	Allow Decision = iota
	Ask
	Deny
)

func (d Decision) String() string {
	return [...]string{"allow", "ask", "deny"}[d]
}

// Action describes what a call would do.
type Action struct {
	Tool string
	// Changes is set when the call writes, moves or deletes something.
	Changes bool
	// Outside is set when the call touches a path outside the workspace.
	Outside bool
	// Sensitive is set when a path is configuration that must always be
	// shown to the user (see Sensitive).
	Sensitive bool
	// Untrusted is set when the call writes what later requests read back
	// as their own notes (project memory) in a request that has read
	// content from outside (the web): such a write asks in every mode, even
	// bypass, and no saved rule covers it.
	Untrusted bool
}

// ValidMode reports whether m is a known permission mode.
func ValidMode(m protocol.Mode) bool {
	for _, x := range protocol.Modes {
		if m == x {
			return true
		}
	}
	return false
}

// ModeNames lists the permission modes for a message: "default, acceptEdits, …".
func ModeNames() string {
	names := make([]string, len(protocol.Modes))
	for i, m := range protocol.Modes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// Decide applies the mode to an action. The reason explains a Deny.
func Decide(mode protocol.Mode, a Action) (Decision, string) {
	if a.Untrusted && a.Changes && mode != protocol.ModePlan {
		return Ask, ""
	}
	switch mode {
	case protocol.ModeBypass:
		return Allow, ""
	case protocol.ModePlan:
		if a.Changes {
			return Deny, "plan mode is read-only: " + a.Tool + " changes files, so it is refused. Describe the change in your plan instead; the user can leave plan mode to apply it"
		}
	}
	if !a.Changes {
		if a.Outside {
			return Ask, ""
		}
		return Allow, ""
	}
	if mode == protocol.ModeAcceptEdits && !a.Outside && !a.Sensitive {
		return Allow, ""
	}
	return Ask, ""
}

// editorConfig lists folders whose files steer editors and agents: a change
// to them can run code or widen an agent's rights, so it always asks.
var editorConfig = []string{".vscode", ".idea", ".zed", ".cursor", ".claude", ".continue", ".github/copilot", ".devcontainer", ".tether"}

// Sensitive reports whether real (a real path) is one that must always be
// approved even where edits are otherwise accepted: git internals, editor
// and agent configuration in the workspace, dotfiles in the home folder.
func Sensitive(real string, roots []string) bool {
	slash := filepath.ToSlash(real)
	if strings.Contains(slash+"/", "/.git/") {
		return true
	}
	for _, root := range roots {
		rel, err := filepath.Rel(root, real)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, dir := range editorConfig {
			if rel == dir || strings.HasPrefix(rel, dir+"/") {
				return true
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		if rel, err := filepath.Rel(home, real); err == nil && strings.HasPrefix(rel, ".") && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}
