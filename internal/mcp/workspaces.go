package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
)

// workspaces holds the folders calls run in: fixed by --workspace, or
// following the client's roots, and the project stores of each primary
// folder seen.
type workspaces struct {
	log   *slog.Logger
	fixed bool

	mu      sync.Mutex
	current *workspace.Workspace
	// ready is closed when no roots answer is awaited; gen counts the
	// roots requests, so that only the newest one's answer is kept.
	ready chan struct{}
	gen   int
	// env is the calls' environment for current, built on first use.
	env    *tool.Env
	stores map[string]*stores.Stores
}

func newWorkspaces(folders []string, set *tool.Settings, log *slog.Logger) (*workspaces, error) {
	w := &workspaces{log: log, fixed: len(folders) > 0, ready: make(chan struct{}), stores: map[string]*stores.Stores{}}
	close(w.ready)
	if len(folders) == 0 {
		folders = []string{"."}
	}
	ws, err := tool.OpenWorkspace(folders, set)
	if err != nil {
		return nil, err
	}
	w.current = ws
	return w, nil
}

// followRoots asks the client for its roots, when it offers them and no
// --workspace was given; calls that start meanwhile wait for the answer.
// It runs after initialization and after every roots/list_changed.
func (s *server) followRoots(ss *sdk.ServerSession) {
	if s.ws.fixed || sdkCaps(ss).RootsV2 == nil || inputByResult(ss) {
		return
	}
	gen := s.ws.expect()
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		ctx, cancel := context.WithTimeout(s.ctx, s.o.RootsWait)
		defer cancel()
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			s.log.Warn("the client did not list its roots; keeping the workspace", "err", err)
			s.ws.settle(gen, nil)
			return
		}
		s.ws.settle(gen, rootsWorkspace(res.Roots, &s.settings, s.log))
	}()
}

// expect notes that a roots answer is awaited.
func (w *workspaces) expect() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	select {
	case <-w.ready:
		w.ready = make(chan struct{})
	default:
	}
	return w.gen
}

// settle takes the answer to roots request gen: ws, or nil to keep the
// workspace as it is. An answer overtaken by a newer request is dropped.
func (w *workspaces) settle(gen int, ws *workspace.Workspace) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gen != w.gen {
		return
	}
	if ws != nil {
		w.current = ws
		w.log.Info("workspace from the client's roots", "folders", len(ws.Roots()), "primary", ws.Primary())
	}
	select {
	case <-w.ready:
	default:
		close(w.ready)
	}
}

// rootsWorkspace turns the client's roots into a workspace; roots that
// are not local folders are skipped. Nil when none is usable.
func rootsWorkspace(roots []*sdk.Root, set *tool.Settings, log *slog.Logger) *workspace.Workspace {
	var paths []string
	for _, r := range roots {
		if r == nil {
			continue
		}
		p, err := rootPath(r.URI)
		if err != nil {
			log.Warn("skipping a root", "uri", r.URI, "err", err)
			continue
		}
		if _, err := workspace.New(p); err != nil {
			log.Warn("skipping a root", "uri", r.URI, "err", err)
			continue
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		if len(roots) > 0 {
			log.Warn("none of the client's roots is a local folder; keeping the workspace")
		}
		return nil
	}
	ws, err := tool.OpenWorkspace(paths, set)
	if err != nil {
		log.Warn("the client's roots do not make a workspace; keeping the workspace", "err", err)
		return nil
	}
	return ws
}

// rootPath turns a root's file:// URI into a local path.
func rootPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("not a URI: %v", err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("only file:// roots are supported, not %s://", u.Scheme)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("roots on another host (%s) are not supported", u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		// file:///C:/dir has the path /C:/dir.
		p = strings.TrimPrefix(p, "/")
	}
	if p == "" {
		return "", errors.New("the URI has no path")
	}
	return filepath.FromSlash(p), nil
}

// env is the environment for a call starting now: the current workspace,
// once the client's roots (if awaited) have come or the wait is over, and
// its project's stores.
func (s *server) env(ctx context.Context, ss *sdk.ServerSession) (*tool.Env, *stores.Stores, error) {
	w := s.ws
	w.mu.Lock()
	ready := w.ready
	w.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	default:
		wait, cancel := context.WithTimeout(ctx, s.o.RootsWait)
		select {
		case <-ready:
		case <-wait.Done():
			if ctx.Err() != nil {
				cancel()
				return nil, nil, ctx.Err()
			}
			s.log.Warn("the client's roots did not come in time; running in the workspace as it is")
		}
		cancel()
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.env != nil && w.env.Workspace == w.current {
		return w.env, w.stores[w.current.Primary()], nil
	}
	root := w.current.Primary()
	st := w.stores[root]
	if st == nil {
		var err error
		if st, err = tool.OpenStores(w.current, &s.settings, s.log, false); err != nil {
			return nil, nil, err
		}
		w.stores[root] = st
	}
	// The requests' marks and the job manager belong to the session, not
	// to one workspace: they carry over when the client's roots change.
	env := tool.NewEnv(tool.EnvConfig{
		Workspace:    w.current,
		Host:         &host{s: s, root: root},
		Log:          s.log,
		Capabilities: s.clientCaps(ss),
		Settings:     s.settings,
		Stores:       st,
		Requests:     s.marks,
		Jobs:         s.jobs,
	})
	w.env = env
	return env, st, nil
}

// close releases every project's stores.
func (w *workspaces) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for root, st := range w.stores {
		if err := st.Close(); err != nil {
			w.log.Warn("closing the project's stores", "root", root, "err", err)
		}
	}
	w.stores = map[string]*stores.Stores{}
}
