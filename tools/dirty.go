package tools

import (
	"fmt"
	"sync"
)

// DirtyFiles is the set of files with unsaved changes in the editor, as
// the client last reported them (real paths). Writing such a file would
// put the user's unsaved work in conflict with Tether's change.
type DirtyFiles struct {
	mu    sync.Mutex
	paths map[string]bool
}

// Set replaces the set.
func (d *DirtyFiles) Set(paths []string) {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	d.mu.Lock()
	d.paths = m
	d.mu.Unlock()
}

// Has reports whether path has unsaved changes.
func (d *DirtyFiles) Has(path string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paths[path]
}

// refuseDirty stops a change to a file the user is editing and has not
// saved: the editor would then hold two versions and one would be lost.
func (c *Call) refuseDirty(p *Plan) error {
	for _, ch := range p.Changes {
		for _, loc := range []string{ch.Path.Real, ch.From.Real} {
			if loc != "" && c.Env.Dirty.Has(loc) {
				return fmt.Errorf("%s has unsaved changes in the editor, and writing it now would conflict with them. Ask the user to save (or revert) it, then read it again", c.Env.Workspace.Rel(loc))
			}
		}
	}
	return nil
}
