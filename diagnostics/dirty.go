package diagnostics

import "sync"

// Dirty is the set of files with unsaved changes in the editor, as the
// client last reported them (real paths). Writing such a file would put
// the user's unsaved work in conflict with Tether's change. The nil set
// has no files.
type Dirty struct {
	mu    sync.Mutex
	paths map[string]bool
}

// Set replaces the set.
func (d *Dirty) Set(paths []string) {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	d.mu.Lock()
	d.paths = m
	d.mu.Unlock()
}

// Has reports whether path has unsaved changes.
func (d *Dirty) Has(path string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paths[path]
}
