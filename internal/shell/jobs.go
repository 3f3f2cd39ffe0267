package shell

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// DefaultMaxRunning is how many background jobs may run at once. A model
// that starts servers in a loop is stopped long before the machine is.
const DefaultMaxRunning = 8

// Jobs supervises one daemon's commands: the background jobs it starts
// and, through Run, its foreground commands, so that everything it started
// can be stopped at once when it shuts down.
//
// Wiring: open one per daemon (or CLI run) with OpenJobs and call Close
// when it shuts down, exits, or its stdin closes.
type Jobs struct {
	// MaxRunning caps the background jobs running at once.
	MaxRunning int

	root  string
	owner string
	ctx   context.Context
	stop  context.CancelCauseFunc

	// The folder, its lock and the cgroup are made by the first command
	// (ready), not at start: most sessions run none, and making them was
	// a twentieth of the time from start to the answer to initialize.
	setUp    sync.Once
	setUpErr error
	used     bool // ready ran: a command may have started
	dir      string
	lock     *os.File

	// cg is the daemon's cgroup, where one could be made (Linux); useCg
	// turns false should the kernel refuse to start a command in it.
	cgMu  sync.Mutex
	cg    *cgroup
	useCg bool

	mu     sync.Mutex
	jobs   map[string]*Job
	next   int
	closed bool
	wg     sync.WaitGroup

	// warm holds the sandboxes started ahead of their commands.
	warm warmPool
}

// OpenJobs opens a job manager whose logs live under JobsRoot. It first
// clears what dead daemons left there: their folders, and any of their
// processes still running.
func OpenJobs() (*Jobs, error) { return OpenJobsIn(JobsRoot()) }

// OpenJobsIn is OpenJobs with the logs under root.
func OpenJobsIn(root string) (*Jobs, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the job log folder: %w", err)
	}
	cleanStale(root)
	ctx, stop := context.WithCancelCause(context.Background())
	return &Jobs{MaxRunning: DefaultMaxRunning, root: root, owner: NewMarker(), ctx: ctx, stop: stop, jobs: map[string]*Job{}}, nil
}

// ready makes, once, what the commands need before the first of them
// runs: the manager's folder (locked, so no other daemon takes it for a
// dead one's), this process as the subreaper of its commands, and its
// cgroup where one can be made.
func (m *Jobs) ready() error {
	m.setUp.Do(func() {
		m.used = true
		dir, lock, err := claimFolder(m.root, m.owner)
		if err != nil {
			m.setUpErr = fmt.Errorf("cannot create the job log folder: %w", err)
			return
		}
		m.dir, m.lock = dir, lock
		prepareTree()
		cg := openCgroup(m.owner)
		if cg != nil {
			// Written before any command runs in it, so a daemon killed at
			// any moment leaves the next one the way to its processes.
			if err := os.WriteFile(filepath.Join(dir, cgroupFile), []byte(cg.path), 0o600); err != nil {
				cg.stop()
				cg = nil
			}
		}
		m.cgMu.Lock()
		m.cg, m.useCg = cg, cg != nil
		m.cgMu.Unlock()
	})
	return m.setUpErr
}

// Isolation says how this manager finds every process its commands start,
// for doctor and the logs.
func (m *Jobs) Isolation() string {
	_ = m.ready() // a manager that cannot make its folder runs commands without a cgroup
	m.cgMu.Lock()
	defer m.cgMu.Unlock()
	if m.useCg {
		return isolationName() + ", and a cgroup (" + m.cg.path + ") that outlives the daemon"
	}
	return isolationName()
}

// cgroupDir is the open cgroup folder commands start in, nil when none.
func (m *Jobs) cgroupDir() *os.File {
	if m == nil {
		return nil
	}
	m.cgMu.Lock()
	defer m.cgMu.Unlock()
	if !m.useCg {
		return nil
	}
	return m.cg.fd()
}

// dropCgroup stops using the cgroup after the kernel refused a command in
// it; it is still emptied and removed on Close.
func (m *Jobs) dropCgroup(error) {
	m.cgMu.Lock()
	m.useCg = false
	m.cgMu.Unlock()
}

// noteGroup records a command's process group in the manager's folder
// while it runs, so that the next daemon, should this one die, can find
// what is left of it.
func (m *Jobs) noteGroup(p *Process, running bool) {
	if m == nil || !recordGroups || m.dir == "" {
		return
	}
	name := filepath.Join(m.dir, groupPrefix+strconv.Itoa(p.pgid))
	if !running {
		os.Remove(name)
		return
	}
	start, _ := procStart(p.pgid)
	_ = os.WriteFile(name, []byte(strconv.FormatUint(start, 10)), 0o600)
}

// Dir is this manager's log folder, made if it is not yet; "" when it
// cannot be.
func (m *Jobs) Dir() string {
	_ = m.ready()
	return m.dir
}

// Start runs spec in the background. Its output goes to a log file; read
// it with Job.Read.
func (m *Jobs) Start(spec Spec) (*Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosing
	}
	if err := m.ready(); err != nil {
		return nil, err // a job's output goes to a log in the folder
	}
	if running := m.runningLocked(); len(running) >= m.maxRunning() {
		return nil, fmt.Errorf("%d background jobs are already running (%s): stop one with shell_kill before starting another", len(running), strings.Join(running, ", "))
	}
	m.next++
	id := "job-" + strconv.Itoa(m.next)
	logPath := filepath.Join(m.dir, id+".log")
	log, err := createJobLog(logPath)
	if err != nil {
		return nil, fmt.Errorf("cannot create the job's log file: %w", err)
	}
	spec.Marker = m.owner + "/" + id
	spec.jobs = m
	p, err := Start(spec, log)
	if err != nil {
		log.close()
		os.Remove(logPath)
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(m.ctx)
	j := &Job{ID: id, Command: spec.Command, Pid: p.Pid(), LogPath: logPath, Started: p.started, log: log, cancel: cancel, done: make(chan struct{})}
	m.jobs[id] = j
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer cancel(nil)
		j.finish(p.Wait(ctx))
	}()
	return j, nil
}

// Run runs a foreground command under the manager: it is stopped, like the
// jobs, when the manager closes.
func (m *Jobs) Run(ctx context.Context, spec Spec, sink io.Writer) (Outcome, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Outcome{}, ErrClosing
	}
	m.wg.Add(1)
	m.mu.Unlock()
	defer m.wg.Done()
	// Without its folder the command still runs, stopped with the manager
	// and found by its marker; only a daemon killed meanwhile leaves the
	// next one less to find it by.
	_ = m.ready()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopWithManager := context.AfterFunc(m.ctx, func() { cancel(context.Cause(m.ctx)) })
	defer stopWithManager()
	spec.Marker = m.owner + "/run-" + NewMarker()
	spec.jobs = m
	return Run(ctx, spec, sink)
}

// Get finds a job by id.
func (m *Jobs) Get(id string) (*Job, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[id]
	return j, ok
}

// IDs lists the known jobs, oldest first.
func (m *Jobs) IDs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.jobs))
	for id := range m.jobs {
		ids = append(ids, id)
	}
	sortJobIDs(ids)
	return ids
}

// Kill stops a job (SIGTERM to everything it started, SIGKILL after the
// grace period) and returns once it has ended. Stopping a job that has
// already ended does nothing.
func (m *Jobs) Kill(id string) (*Job, error) {
	j, ok := m.Get(id)
	if !ok {
		return nil, m.unknown(id)
	}
	j.cancel(ErrKilled)
	<-j.done
	return j, nil
}

// Remove forgets an ended job and deletes its log.
func (m *Jobs) Remove(id string) {
	m.mu.Lock()
	j, ok := m.jobs[id]
	if ok && !j.Running() {
		delete(m.jobs, id)
	}
	m.mu.Unlock()
	if ok && !j.Running() {
		os.Remove(j.LogPath)
	}
}

// KillAll stops every background job and waits for them. The manager
// stays usable; Close also stops the foreground commands.
func (m *Jobs) KillAll() {
	m.mu.Lock()
	jobs := make([]*Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		jobs = append(jobs, j)
	}
	m.mu.Unlock()
	for _, j := range jobs {
		j.cancel(ErrClosing)
	}
	for _, j := range jobs {
		<-j.done
	}
}

// Close stops everything the manager started, waits for it to end, and
// deletes the logs. It is safe to call more than once.
func (m *Jobs) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.stop(ErrClosing)
	m.wg.Wait()
	m.closeWarm()
	// Every command has been stopped by ancestry; whatever the cgroup
	// still holds goes with it, and so does anything that escaped a sweep:
	// an orphan handed to this process, a process with this daemon's marker.
	m.setUp.Do(func() {}) // no folder is made from now on
	if m.cg != nil {
		m.cg.stop()
	}
	sweepAdopted()
	if !m.used {
		return nil // no command of this manager ran: none carries its marker
	}
	stopOwner(m.owner)
	if m.dir == "" {
		return nil
	}
	err := os.RemoveAll(m.dir)
	m.lock.Close()
	return err
}

func (m *Jobs) unknown(id string) error {
	ids := m.IDs()
	if len(ids) == 0 {
		return fmt.Errorf("there is no job %q: no background job has been started (start one with shell and background: true)", id)
	}
	return fmt.Errorf("there is no job %q; the jobs are: %s", id, strings.Join(ids, ", "))
}

func (m *Jobs) runningLocked() []string {
	var ids []string
	for id, j := range m.jobs {
		if j.Running() {
			ids = append(ids, id)
		}
	}
	sortJobIDs(ids)
	return ids
}

func (m *Jobs) maxRunning() int {
	if m.MaxRunning > 0 {
		return m.MaxRunning
	}
	return DefaultMaxRunning
}

// sortJobIDs orders "job-2" before "job-10".
func sortJobIDs(ids []string) {
	num := func(id string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(id, "job-"))
		return n
	}
	sort.Slice(ids, func(a, b int) bool { return num(ids[a]) < num(ids[b]) })
}
