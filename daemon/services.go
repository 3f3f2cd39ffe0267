package daemon

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/permission"
	"github.com/tether-dev/tether/project"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/shell"
	"github.com/tether-dev/tether/staging"
	"github.com/tether-dev/tether/tools"
	"github.com/tether-dev/tether/undo"
)

// attachServices gives an Env the project's stores: undo checkpoints,
// saved "always" answers, staged dry-run changes, the editor's diagnostics
// and unsaved buffers. They live under the XDG folders of the primary
// workspace folder, so two windows on one project share them.
func (s *server) attachServices(env *tools.Env, set protocol.Settings) error {
	root := env.Workspace.Primary()
	store, err := undo.Open(root, undo.Options{Keep: set.UndoKeep, Log: s.logger})
	if err != nil {
		return fmt.Errorf("cannot open the undo store for %s (%v); Tether does not change files it cannot undo. Check that the XDG state folder is writable", root, err)
	}
	rulesPath := filepath.Join(project.ConfigDir(root), "allow.json")
	rules, err := permission.LoadRules(rulesPath)
	if err != nil {
		// Without the saved rules every step simply asks: safe, never silent.
		s.logger.Error("ignoring saved permissions", "path", rulesPath, "err", err)
		rules, _ = permission.LoadRules("")
	}
	env.Checkpoints = store
	env.Rules = rules
	env.Staging = staging.Open(filepath.Join(project.StateDir(root), "staged"))
	env.Diagnostics = diagnostics.NewStore()
	env.Dirty = &tools.DirtyFiles{}
	switch ms := set.DiagnosticsSettleMs; {
	case ms < 0:
		env.SettleTime = -1
	case ms > 0:
		env.SettleTime = time.Duration(ms) * time.Millisecond
	}
	s.undo = store
	jobs, err := shell.OpenJobs()
	if err != nil {
		// Foreground commands still run; background jobs are refused.
		s.logger.Warn("background jobs are unavailable", "err", err)
	} else {
		env.Jobs, s.jobs = jobs, jobs
	}
	env.Trusted = shell.Trusted(root)
	if set.ShellTimeout > 0 {
		env.ShellTimeout = time.Duration(set.ShellTimeout) * time.Second
	}
	return nil
}

// closeServices releases what attachServices opened. Every command and
// background job the daemon started dies with it.
func (s *server) closeServices() {
	if s.jobs != nil {
		s.jobs.Close()
	}
	if s.undo != nil {
		if err := s.undo.Close(); err != nil {
			s.logger.Warn("closing the undo store", "err", err)
		}
	}
}
