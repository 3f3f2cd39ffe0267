package main

import (
	"fmt"
	"path/filepath"

	"github.com/tether-dev/tether/permission"
	"github.com/tether-dev/tether/project"
	"github.com/tether-dev/tether/shell"
	"github.com/tether-dev/tether/staging"
	"github.com/tether-dev/tether/tools"
	"github.com/tether-dev/tether/undo"
)

// openProjectStores gives a headless run the project stores the daemon
// uses, under the same XDG folders: undo checkpoints, so a `tether call`
// run is one undoable request; the saved "always" answers; and the staging
// folder of dryRun mode; and whether the user trusts the project's own
// code to run. The caller closes the undo store.
func openProjectStores(env *tools.Env) (*undo.Store, error) {
	root := env.Workspace.Primary()
	store, err := undo.Open(root, undo.Options{Log: env.Log})
	if err != nil {
		return nil, fmt.Errorf("cannot open the undo store for %s (%v); tether does not change files it cannot undo. Check the XDG state folder with tether doctor", root, err)
	}
	rulesPath := filepath.Join(project.ConfigDir(root), "allow.json")
	rules, err := permission.LoadRules(rulesPath)
	if err != nil {
		// Without the saved rules every step asks: safe, never silent.
		env.Log.Warn("ignoring saved permissions", "path", rulesPath, "err", err)
		rules, _ = permission.LoadRules("")
	}
	env.Checkpoints = store
	env.Rules = rules
	env.Staging = staging.Open(filepath.Join(project.StateDir(root), "staged"))
	env.Trusted = shell.Trusted(root)
	return store, nil
}
