package daemon

import (
	"context"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// The methods in this file read and change the project's stores: undo
// checkpoints, saved permissions, staged dry-run changes. A failure that
// the user can act on (no such checkpoint, nothing to undo) is an
// InvalidParams error whose message says what to do.

func (s *server) undoList(context.Context, *protocol.None) (protocol.UndoListResult, error) {
	cps, err := s.undo.List()
	if err != nil {
		return protocol.UndoListResult{}, jsonrpc2.Errorf(jsonrpc2.InternalError, "reading the undo checkpoints: %v", err)
	}
	if cps == nil {
		cps = []protocol.Checkpoint{}
	}
	return protocol.UndoListResult{Checkpoints: cps}, nil
}

func (s *server) undoUndo(_ context.Context, p *protocol.UndoParams) (protocol.UndoResult, error) {
	rep, err := s.undo.Undo(p.ID)
	if err != nil {
		return protocol.UndoResult{}, invalidParams("%v", err)
	}
	// Empty lists, not null, so a client can count them.
	out := rep
	out.Restored = nonNil(rep.Restored)
	if out.Conflicts == nil {
		out.Conflicts = []protocol.Conflict{}
	}
	// Agents' read records of the restored files are now stale by mtime
	// and size, so an edit needs a fresh read: nothing to do here.
	s.logger.Info("undo", "checkpoint", rep.ID, "restored", len(rep.Restored), "conflicts", len(rep.Conflicts))
	return out, nil
}

func (s *server) undoShow(_ context.Context, p *protocol.UndoShowParams) (protocol.UndoShowResult, error) {
	if p.ID == "" {
		return protocol.UndoShowResult{}, invalidParams("undo/show needs \"id\": a checkpoint id from undo/list")
	}
	d, err := s.undo.Show(p.ID)
	if err != nil {
		return protocol.UndoShowResult{}, invalidParams("%v", err)
	}
	return protocol.UndoShowResult{Diff: d}, nil
}

func (s *server) permissionsList(context.Context, *protocol.None) (protocol.PermissionsListResult, error) {
	out := protocol.PermissionsListResult{Mode: s.env.Mode(), Path: s.env.Rules.Path(), Rules: []protocol.PermissionRule{}}
	for _, r := range s.env.Rules.List() {
		out.Rules = append(out.Rules, r.Wire())
	}
	return out, nil
}

// permissionsRemove forgets the rules named, as permissions/list gave them.
func (s *server) permissionsRemove(_ context.Context, p *protocol.PermissionsRemoveParams) (protocol.PermissionsRemoveResult, error) {
	removed := 0
	for _, r := range p.Rules {
		n, err := s.env.Rules.Remove(permission.RuleFrom(r))
		if err != nil {
			return protocol.PermissionsRemoveResult{}, jsonrpc2.Errorf(jsonrpc2.InternalError, "removing a saved permission: %v", err)
		}
		removed += n
	}
	return protocol.PermissionsRemoveResult{Removed: removed}, nil
}

func (s *server) permissionsReset(context.Context, *protocol.None) (protocol.PermissionsResetResult, error) {
	n := len(s.env.Rules.List())
	if err := s.env.Rules.Reset(); err != nil {
		return protocol.PermissionsResetResult{}, jsonrpc2.Errorf(jsonrpc2.InternalError, "clearing the saved permissions: %v", err)
	}
	return protocol.PermissionsResetResult{Removed: n}, nil
}

func (s *server) stagedList(context.Context, *protocol.None) (protocol.StagedListResult, error) {
	entries, err := s.env.Staging.List()
	if err != nil {
		return protocol.StagedListResult{}, jsonrpc2.Errorf(jsonrpc2.InternalError, "reading the staged changes: %v", err)
	}
	out := protocol.StagedListResult{Staged: []protocol.StagedChange{}}
	for _, e := range entries {
		sc := protocol.StagedChange{ID: e.ID, Created: e.Created, RequestID: e.RequestID, Tool: e.Tool, Title: e.Title, Diff: e.Diff}
		for _, c := range e.Changes {
			sc.Files = append(sc.Files, s.env.Workspace.Rel(c.Path))
		}
		out.Staged = append(out.Staged, sc)
	}
	return out, nil
}

// stagedApply writes staged changes, oldest first, as one request: one
// undo checkpoint puts them all back.
func (s *server) stagedApply(ctx context.Context, p *protocol.StagedParams) (protocol.StagedApplyResult, error) {
	ids, err := s.stagedIDs(p.IDs)
	if err != nil {
		return protocol.StagedApplyResult{}, err
	}
	if p.RequestID == "" {
		p.RequestID = "staged-" + strings.Join(ids, "+")
	}
	out := protocol.StagedApplyResult{Applied: []string{}, Failed: []protocol.StagedFailure{}}
	for _, id := range ids {
		e, err := s.env.Staging.Get(id)
		if err != nil {
			out.Failed = append(out.Failed, protocol.StagedFailure{ID: id, Reason: err.Error()})
			continue
		}
		c := &tool.Call{Name: protocol.MethodStagedApply, RequestID: p.RequestID, Budget: s.env.Settings.Budget(), Session: s.sessions.get(""), Env: s.env}
		res, err := c.ApplyStaged(ctx, e)
		if err != nil {
			s.logger.Error("applying a staged change", "id", id, "err", err)
		}
		if res.IsError {
			out.Failed = append(out.Failed, protocol.StagedFailure{ID: id, Reason: res.Content})
			continue
		}
		if err := s.env.Staging.Remove(id); err != nil {
			s.logger.Warn("applied a staged change but could not remove it", "id", id, "err", err)
		}
		out.Applied = append(out.Applied, id)
	}
	if id, ok := s.undo.CheckpointID(p.RequestID); ok && len(out.Applied) > 0 {
		out.Checkpoint = id
	}
	return out, nil
}

func (s *server) stagedDrop(_ context.Context, p *protocol.StagedParams) (protocol.StagedDropResult, error) {
	ids, err := s.stagedIDs(p.IDs)
	if err != nil {
		return protocol.StagedDropResult{}, err
	}
	out := protocol.StagedDropResult{Dropped: []string{}}
	for _, id := range ids {
		if err := s.env.Staging.Remove(id); err != nil {
			return out, invalidParams("%v", err)
		}
		out.Dropped = append(out.Dropped, id)
	}
	return out, nil
}

// stagedIDs resolves ids (or prefixes) to full ids; none means all.
func (s *server) stagedIDs(ids []string) ([]string, error) {
	if len(ids) == 0 {
		all, err := s.env.Staging.List()
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "reading the staged changes: %v", err)
		}
		for _, e := range all {
			ids = append(ids, e.ID)
		}
		return ids, nil
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		e, err := s.env.Staging.Get(id)
		if err != nil {
			return nil, invalidParams("%v", err)
		}
		out = append(out, e.ID)
	}
	return out, nil
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// checkpointOf names the checkpoint a call's changes went into, if any.
func (s *server) checkpointOf(requestID string) string {
	if s.undo == nil || requestID == "" {
		return ""
	}
	id, _ := s.undo.CheckpointID(requestID)
	return id
}
