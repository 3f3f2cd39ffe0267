// Package stores opens a project's on-disk state for one session, the same
// way for the daemon and the headless command line: undo checkpoints,
// saved "always" answers, dry-run staging, the shell's job manager and the
// project's trust. They live under the XDG folders, keyed by the primary
// workspace folder, so two editor windows and a terminal on one project
// share them.
package stores

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/project"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/undo"
)

// Options tunes Open.
type Options struct {
	// UndoKeep is how many checkpoints are kept; 0 means undo.DefaultKeep.
	UndoKeep int
	// Jobs opens the shell's job manager for background commands. A short
	// headless run leaves it off: its jobs would die with it at once.
	Jobs bool
	Log  *slog.Logger
	// Roots are the workspace folders undo may restore into (see
	// undo.Options.Roots); empty means the primary folder alone. The
	// project's memory folder is added to them.
	Roots []string
}

// Stores is one project's state, open.
type Stores struct {
	Undo    *undo.Store
	Rules   *permission.Rules
	Staging *staging.Store
	Jobs    *shell.Jobs // nil unless Options.Jobs (or it failed to open)
	Trusted bool
	// Memory is the project's memory folder, under the XDG data folder.
	Memory *memory.Store
	// StateDir is the project's state folder, where a sandboxed command's
	// overlay layers are made.
	StateDir string
}

// Open opens the stores of the project whose primary folder is root. The
// undo store is the one that must open: Tether does not change files it
// cannot undo. The others degrade safely: without saved rules every step
// asks; without a job manager background commands are refused.
func Open(root string, o Options) (*Stores, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Undo writes beneath the workspace folders and the project's memory
	// folder (a request's memory writes are in its checkpoint), which must
	// therefore exist.
	memDir := memory.Dir(root)
	if err := os.MkdirAll(memDir, 0o700); err != nil {
		return nil, err
	}
	undoRoots := append([]string(nil), o.Roots...)
	if len(undoRoots) == 0 {
		undoRoots = []string{root}
	}
	undoRoots = append(undoRoots, memDir)
	u, err := undo.Open(root, undo.Options{Keep: o.UndoKeep, Log: log, Roots: undoRoots})
	if err != nil {
		return nil, fmt.Errorf("open undo store for %s: %w", root, err)
	}
	s := &Stores{Undo: u, Staging: staging.Open(StagingDir(root)), Trusted: shell.Trusted(root), Memory: memory.Open(memDir), StateDir: project.StateDir(root)}
	if s.Rules, err = permission.LoadRules(RulesPath(root)); err != nil {
		log.Error("ignoring saved permissions", "path", RulesPath(root), "err", err)
		s.Rules, _ = permission.LoadRules("")
	}
	if u.WriterDied() {
		s.sweepTemps(root, log)
	}
	// The layers of commands a stopped Tether was running or taking in go;
	// what it was taking in is told by the checkpoint (reportInterrupted).
	if err := overlay.Sweep(project.StateDir(root)); err != nil {
		log.Warn("removing the overlay layers a stopped Tether left", "err", err)
	}
	if o.Jobs {
		if s.Jobs, err = shell.OpenJobs(); err != nil {
			log.Warn("background jobs are unavailable", "err", err)
		}
	}
	return s, nil
}

// sweepTemps clears the temporary files a Tether killed mid-write left
// beside the files recent requests changed, so that a crash leaves no
// stray file in the user's workspace, and reports a command's change set
// that a Tether killed while applying it left interrupted. It runs after
// such a crash only (the undo store tells: every write is checkpointed
// first, so a writer that died is known there), since it reads every
// checkpoint. Only those files are looked at: the cost follows what
// Tether touched, never the workspace's size.
func (s *Stores) sweepTemps(root string, log *slog.Logger) {
	cps, err := s.Undo.List()
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, cp := range cps {
		if cp.Interrupted != "" && !cp.Undone {
			log.Warn("a command's changes were being applied when Tether stopped; undo puts back what was applied",
				"checkpoint", cp.ID, "request", cp.RequestID, "note", cp.Interrupted)
		}
		for _, f := range cp.Files {
			if !filepath.IsAbs(f) {
				f = filepath.Join(root, filepath.FromSlash(f))
			}
			if seen[f] {
				continue
			}
			seen[f] = true
			if removed, _ := fsatomic.SweepTemps(f); len(removed) > 0 {
				log.Info("removed temporary files left by an interrupted write", "files", removed)
			}
		}
	}
}

// RulesPath is the project's allow.json.
func RulesPath(root string) string { return filepath.Join(project.ConfigDir(root), "allow.json") }

// StagingDir is where the project's dry-run changes wait.
func StagingDir(root string) string { return filepath.Join(project.StateDir(root), "staged") }

// Close stops every job the session started and releases the undo store
// and the memory folder's watch.
func (s *Stores) Close() error {
	if s.Jobs != nil {
		s.Jobs.Close()
	}
	s.Memory.Close()
	return s.Undo.Close()
}
