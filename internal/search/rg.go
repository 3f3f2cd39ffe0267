// Package search runs ripgrep (rg) as a child process and reads what it
// prints as it prints it, so that a search can stop ripgrep the moment it
// has collected enough instead of buffering a whole tree's worth of output.
//
// Every search walks files the way ripgrep does: .gitignore, .ignore and
// .rgignore rules apply whether or not the folder is a git checkout,
// hidden files are included (.github/ is ordinary project content), and
// .git/ is always left out. A user's file pattern is never handed to
// ripgrep as a --glob that includes files, because such a glob overrides
// the ignore rules (see Glob).
package search

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoRipgrep means the ripgrep binary is not configured, missing, or
// cannot be started.
var ErrNoRipgrep = errors.New("ripgrep (rg) is not installed or could not be started")

// RgError is ripgrep failing before it produced any result: a bad regex,
// a path it cannot open.
type RgError struct {
	// Code is ripgrep's exit status (2 for errors), or -1 when it was
	// killed by a signal nobody in Tether sent.
	Code int
	// Stderr is what ripgrep said, trimmed.
	Stderr string
}

func (e *RgError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("ripgrep exited with status %d", e.Code)
	}
	return e.Stderr
}

// Stop tells how a search ended.
type Stop int

const (
	// Complete means ripgrep ran to the end: the result is everything.
	Complete Stop = iota
	// AtLimit means the line or path limit was reached and there was more.
	AtLimit
	// AtBudget means the byte budget was reached and there was more.
	AtBudget
)

func (s Stop) String() string {
	return [...]string{"complete", "at limit", "at budget"}[s]
}

// baseArgs are the flags every run starts with. --no-config keeps a
// user's RIPGREP_CONFIG_PATH from changing the output format Tether
// parses; --no-require-git applies .gitignore outside git checkouts too.
func baseArgs() []string {
	return []string{"--no-config", "--no-require-git", "--hidden", "--color", "never"}
}

// excludeGit keeps .git out. It must come after every other glob: for
// ripgrep the last matching glob wins. With --no-require-git ripgrep's own
// skipping of .git is off, so this is needed even in a checkout.
var excludeGit = []string{"--glob", "!.git"}

// trimStderr keeps ripgrep's message readable: its first lines, without
// the hint about --debug that the model cannot act on.
func trimStderr(s string) string {
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.Contains(line, "--debug") {
			continue
		}
		keep = append(keep, line)
		if len(keep) == 12 {
			keep = append(keep, "…")
			break
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// noFilesSearched reports ripgrep's complaint that its filters left
// nothing to search, which for Tether just means nothing matched.
func noFilesSearched(stderr string) bool {
	return strings.Contains(stderr, "No files were searched")
}
