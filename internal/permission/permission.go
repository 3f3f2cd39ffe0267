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
	// Memory is set when the call writes project memory: a change, but
	// not a file edit, so acceptEdits does not exempt it.
	Memory bool
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
	if mode == protocol.ModeAcceptEdits && !a.Outside && !a.Sensitive && !a.Memory {
		return Allow, ""
	}
	return Ask, ""
}

// The sensitive paths: files that run code or decide what runs without
// anyone running them on purpose (on checkout, commit, entering a folder,
// installing dependencies, in CI), and editor and agent configuration,
// which can run code or widen an agent's rights. A change to one always
// asks, even where edits are otherwise accepted (acceptEdits). Ordinary
// build files (Makefile, package.json, build scripts) are the project's
// code and follow the mode. Names are compared ignoring case, since on
// many file systems .GIT is .git. docs/guarantees.md lists them; a test
// keeps the two in step.
var (
	// SensitiveDirs are folders: anything beneath one, at any depth.
	SensitiveDirs = []string{
		// git's own folder and hook folders (core.hooksPath)
		".git", ".githooks", ".husky",
		// CI systems
		".circleci", ".buildkite", ".woodpecker",
		// build tools' per-project configuration that can run programs
		".cargo", ".mvn",
		// editors and agents
		".vscode", ".idea", ".zed", ".cursor", ".claude", ".continue", ".devcontainer", ".tether",
	}
	// SensitivePaths are folders known by more than their own name.
	SensitivePaths = []string{
		".github/workflows", ".github/actions", ".github/copilot", ".gitlab/ci", "gradle/wrapper",
	}
	// SensitiveFiles are file names, in any folder.
	SensitiveFiles = []string{
		// git: submodules fetch and check out code; attributes pick filters and diff drivers
		".gitmodules", ".gitattributes",
		// direnv runs .envrc on entering the folder; mise and asdf pick the tools that run
		".envrc", ".mise.toml", "mise.toml", ".tool-versions",
		// hook managers
		".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml",
		// package managers: registries, install scripts, the yarn binary itself
		".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs",
		// CI configuration kept in single files
		".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml", "Jenkinsfile", "bitbucket-pipelines.yml",
		".drone.yml", ".woodpecker.yml", "appveyor.yml", ".appveyor.yml", ".gitpod.yml",
	}
)

var (
	sensitiveDir  = lowerSet(SensitiveDirs)
	sensitiveFile = lowerSet(SensitiveFiles)
)

func lowerSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}

// Sensitive reports whether real (a real path) is one that must always be
// approved even where edits are otherwise accepted: a git folder anywhere
// on the path, a sensitive folder or file inside a workspace folder (see
// SensitiveDirs, SensitivePaths, SensitiveFiles), a dotfile in the home
// folder.
func Sensitive(real string, roots []string) bool {
	home, _ := os.UserHomeDir()
	return sensitiveFrom(real, roots, home)
}

// sensitiveFrom is Sensitive with the home folder given ("" for none).
func sensitiveFrom(real string, roots []string, home string) bool {
	slash := strings.ToLower(filepath.ToSlash(real))
	if strings.Contains(slash+"/", "/.git/") {
		return true
	}
	for _, root := range roots {
		rel, err := filepath.Rel(root, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if sensitiveRel(strings.ToLower(filepath.ToSlash(rel))) {
			return true
		}
	}
	if home == "" {
		return false
	}
	rel, err := filepath.Rel(home, real)
	if err != nil || !strings.HasPrefix(rel, ".") || strings.HasPrefix(rel, "..") {
		return false
	}
	// A dotfile or dot folder of the home folder (~/.bashrc, ~/.ssh,
	// ~/.config): unless the workspace folder holding the path lies in that
	// same hidden folder. A project kept in ~/.dotfiles or checked out
	// under ~/.cache is the user's choice of workspace, and its files are
	// judged relative to it, above, like any project's.
	hidden := filepath.Join(home, strings.SplitN(rel, string(filepath.Separator), 2)[0])
	for _, root := range roots {
		if within(root, hidden) && within(real, root) {
			return false
		}
	}
	return true
}

// within reports whether path is dir or lies beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sensitiveRel judges a lower-case, slash-separated path relative to a
// workspace folder.
func sensitiveRel(rel string) bool {
	parts := strings.Split(rel, "/")
	if sensitiveFile[parts[len(parts)-1]] {
		return true
	}
	for i, p := range parts {
		if sensitiveDir[p] {
			return true
		}
		rest := strings.Join(parts[i:], "/")
		for _, pre := range SensitivePaths {
			pre = strings.ToLower(pre)
			if rest == pre || strings.HasPrefix(rest, pre+"/") {
				return true
			}
		}
	}
	return false
}
