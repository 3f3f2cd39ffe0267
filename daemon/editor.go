package daemon

import (
	"errors"
	"time"

	lsp "go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// The editor tells the daemon what only it knows: diagnostics and unsaved
// buffers. Both arrive as notifications, so bad input is logged and
// dropped; there is no one to answer.

func (s *server) publishDiagnostics(p *protocol.DiagnosticsPublishParams) {
	if s.env == nil {
		s.logger.Warn("diagnostics/publish before initialize ignored")
		return
	}
	path, err := s.workspacePath(string(p.URI))
	if err != nil {
		s.logger.Debug("diagnostics/publish ignored", "uri", p.URI, "err", err)
		return
	}
	s.env.Diagnostics.Publish(path, p.Diagnostics)
	if !s.env.Dirty.MaybeOpen(path) {
		s.env.Diagnostics.NoteClosedPublish(path)
	}
}

func (s *server) workspaceDirty(p *protocol.WorkspaceDirtyParams) {
	if s.env == nil {
		s.logger.Warn("workspace/dirty before initialize ignored")
		return
	}
	s.env.Dirty.Set(s.workspacePaths(p.URIs))
	if p.Open != nil { // an empty list says no file is open
		s.env.Dirty.SetOpen(s.workspacePaths(p.Open))
	}
}

// workspaceSaved notes the files the user saved, so that a stale-file
// refusal can say who changed them.
func (s *server) workspaceSaved(p *protocol.WorkspaceSavedParams) {
	if s.env == nil {
		s.logger.Warn("workspace/saved before initialize ignored")
		return
	}
	now := time.Now()
	for _, path := range s.workspacePaths(p.URIs) {
		s.env.Changes.NoteSave(path, now)
	}
}

// workspacePaths is workspacePath of each URI, leaving out the ones
// outside the workspace.
func (s *server) workspacePaths(uris []lsp.DocumentURI) []string {
	paths := make([]string, 0, len(uris))
	for _, u := range uris {
		if path, err := s.workspacePath(string(u)); err == nil {
			paths = append(paths, path)
		}
	}
	return paths
}

// workspacePath turns an editor URI into the real path the tools use, and
// refuses files outside the workspace: their diagnostics are not ours to
// report.
func (s *server) workspacePath(u string) (string, error) {
	path, err := folderPath(uri.URI(u))
	if err != nil {
		return "", err
	}
	real, err := workspace.Real(path)
	if err != nil {
		return "", err
	}
	if !s.env.Workspace.Contains(real) {
		return "", errOutside
	}
	return real, nil
}

var errOutside = errors.New("the file is outside the workspace folders")
