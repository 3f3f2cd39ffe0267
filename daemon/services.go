package daemon

import (
	"time"

	"github.com/tether-dev/tether/diagnostics"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// attachServices gives an Env the project's stores (see package stores),
// the editor's diagnostics and its unsaved buffers.
func (s *server) attachServices(env *tool.Env, set protocol.Settings) error {
	st, err := tool.OpenStores(env.Workspace.Primary(), stores.Options{UndoKeep: set.UndoKeep, Jobs: true, Log: s.logger, Roots: env.Workspace.Paths()})
	if err != nil {
		return err
	}
	env.Attach(st)
	env.Diagnostics = diagnostics.NewStore()
	env.Dirty = &diagnostics.Dirty{}
	env.Requests = tool.NewRequests()
	switch ms := set.DiagnosticsSettleMs; {
	case ms < 0:
		env.Settings.SettleTime = -1
	case ms > 0:
		env.Settings.SettleTime = time.Duration(ms) * time.Millisecond
	}
	if set.ShellTimeout > 0 {
		env.Settings.ShellTimeout = time.Duration(set.ShellTimeout) * time.Second
	}
	s.stores, s.undo = st, st.Undo
	return nil
}

// closeServices releases what attachServices opened. Every command and
// background job the daemon started dies with it.
func (s *server) closeServices() {
	if s.stores != nil {
		if err := s.stores.Close(); err != nil {
			s.logger.Warn("closing the project's stores", "err", err)
		}
	}
}
