package diagnostics

import "sync"

// Dirty is what the editor last said about its buffers (real paths): the
// files with unsaved changes, and, when it says, the files it has open.
// Writing a file with unsaved changes would put the user's work in
// conflict with Tether's change; a file that is not open is, for most
// language servers, not checked, so no fresh diagnostics of it will come.
// The nil Dirty has no files and does not know which are open.
type Dirty struct {
	mu    sync.Mutex
	paths map[string]bool
	open  map[string]bool // nil: the editor has not said
}

// Set replaces the files with unsaved changes.
func (d *Dirty) Set(paths []string) {
	m := set(paths)
	d.mu.Lock()
	d.paths = m
	d.mu.Unlock()
}

// SetOpen replaces the files open in the editor.
func (d *Dirty) SetOpen(paths []string) {
	m := set(paths)
	d.mu.Lock()
	d.open = m
	d.mu.Unlock()
}

func set(paths []string) map[string]bool {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	return m
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

// MaybeOpen reports whether path is open in the editor, or may be: true
// when the editor has not said which files are open.
func (d *Dirty) MaybeOpen(path string) bool {
	if d == nil {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.open == nil || d.open[path]
}
