package shell

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/sandbox"
)

// A sandboxed command pays for the sandbox's first process to start
// (Tether's own binary, exec'd into new namespaces) and set up its file
// system before the shell runs. A job manager keeps one such process
// started ahead for each kind of sandbox its commands used (level,
// network, folders): it sets up all it can and waits. The next command of
// that kind hands it its command line and only waits for the last steps
// (pivot, Landlock, the shell's start); once that command has ended, a new
// one is started in the background for the command after. A sandbox started ahead runs nothing
// of a command before it is given one; one that is not needed is ended
// when the manager closes, and dies with the daemon like any of its
// processes (parent-death signal, cgroup).

// warm is a sandbox started ahead of its command.
type warm struct {
	cmd    *exec.Cmd
	tree   tree
	launch *sandbox.Launch
	out    *os.File // the read end of its output pipe
	// folders are the workspace folders as they were when it started: a
	// folder replaced since (renamed, deleted and made again) is not the
	// one it bound.
	folders []os.FileInfo
	paths   []string
}

// warmPool holds a manager's sandboxes started ahead, one per kind.
type warmPool struct {
	mu      sync.Mutex
	idle    map[string]*warm
	pending map[string]bool
	closed  bool
	wg      sync.WaitGroup
}

// warmKey names a kind of sandbox: its spec but for what travels with the
// command.
func warmKey(s sandbox.Spec) string {
	s.Grace = 0
	b, _ := json.Marshal(s)
	return string(b)
}

// startWarm runs spec in a sandbox started ahead, where the manager has
// one of its kind, and starts the next in the background. ok is false
// when the command must start the usual way.
func (m *Jobs) startWarm(spec Spec, sink io.Writer) (p *Process, ok bool) {
	if m == nil || spec.Sandbox == nil || !spec.Sandbox.Level.Confined() {
		return nil, false
	}
	key := warmKey(*spec.Sandbox)
	w := m.takeWarm(key)
	if w == nil {
		// The next command of this kind finds one ready; this one starts
		// the usual way.
		m.refill(key, *spec.Sandbox)
		return nil, false
	}
	started := time.Now()
	err := w.launch.Run(sandbox.Command{Path: spec.Shell, Args: append([]string{spec.Shell}, shellArgs(spec.Command)...), Dir: spec.Dir, Env: commandEnv(spec), Grace: spec.Grace, Overlays: spec.Overlays})
	if err == nil {
		err = w.launch.Started()
	}
	if err != nil {
		// Its set-up failed, or it died waiting: start the usual way,
		// which says what is wrong if it still is.
		reap(w.cmd, w.tree, w.launch)
		w.out.Close()
		m.refill(key, *spec.Sandbox)
		return nil, false
	}
	p = newProcess(spec, w.cmd, w.tree, w.launch, w.out, started, sink)
	// The next one is started when this command has ended, not beside
	// it: it would take the CPU the command runs on.
	p.ended = func() { m.refill(key, *spec.Sandbox) }
	return p, true
}

// takeWarm hands out the idle sandbox of a kind, if there is a sound one.
func (m *Jobs) takeWarm(key string) *warm {
	m.warm.mu.Lock()
	w := m.warm.idle[key]
	delete(m.warm.idle, key)
	m.warm.mu.Unlock()
	if w == nil {
		return nil
	}
	for i, p := range w.paths {
		if fi, err := os.Stat(p); err != nil || !os.SameFile(fi, w.folders[i]) {
			reap(w.cmd, w.tree, w.launch)
			w.out.Close()
			return nil
		}
	}
	return w
}

// refill starts a sandbox of a kind ahead of its command, in the
// background, unless one is idle or being started.
func (m *Jobs) refill(key string, s sandbox.Spec) {
	m.warm.mu.Lock()
	defer m.warm.mu.Unlock()
	if m.warm.closed || m.warm.idle[key] != nil || m.warm.pending[key] {
		return
	}
	if m.warm.pending == nil {
		m.warm.pending, m.warm.idle = map[string]bool{}, map[string]*warm{}
	}
	m.warm.pending[key] = true
	m.warm.wg.Add(1)
	go func() {
		defer m.warm.wg.Done()
		w := m.prepareWarm(s)
		m.warm.mu.Lock()
		delete(m.warm.pending, key)
		if w != nil && !m.warm.closed {
			m.warm.idle[key] = w
			w = nil
		}
		m.warm.mu.Unlock()
		if w != nil {
			reap(w.cmd, w.tree, w.launch)
			w.out.Close()
		}
	}()
}

// prepareWarm starts a sandbox that waits for its command; nil when it
// cannot (the command then starts the usual way, and says why).
func (m *Jobs) prepareWarm(s sandbox.Spec) *warm {
	if len(s.Folders) == 0 {
		return nil
	}
	w := &warm{}
	for _, f := range s.Folders {
		fi, err := os.Stat(f.Path)
		if err != nil {
			return nil
		}
		w.folders, w.paths = append(w.folders, fi), append(w.paths, f.Path)
	}
	r, pw, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd := exec.Command(selfPath)
	cmd.Dir = s.Folders[0].Path
	cmd.Env = append(os.Environ(), markerVar+"="+m.owner+"/warm-"+NewMarker())
	cmd.Stdout, cmd.Stderr = pw, pw
	launch, err := s.Prepare(cmd)
	if err != nil {
		r.Close()
		pw.Close()
		return nil
	}
	cmd, t, err := startTree(cmd, Spec{jobs: m})
	pw.Close()
	if err != nil {
		r.Close()
		launch.Close()
		return nil
	}
	launch.Launched()
	w.cmd, w.tree, w.launch, w.out = cmd, t, launch, r
	return w
}

// selfPath stands for this program in a sandbox started ahead; Prepare
// puts the path it re-executes in its place.
const selfPath = "/proc/self/exe"

// WaitAhead waits until the sandboxes being started ahead of the next
// commands are ready (for a benchmark that times a command alone).
func (m *Jobs) WaitAhead() { m.warm.wg.Wait() }

// closeWarm ends the sandboxes started ahead and not used.
func (m *Jobs) closeWarm() {
	m.warm.mu.Lock()
	m.warm.closed = true
	idle := m.warm.idle
	m.warm.idle = nil
	m.warm.mu.Unlock()
	m.warm.wg.Wait()
	for _, w := range idle {
		reap(w.cmd, w.tree, w.launch)
		w.out.Close()
	}
}
