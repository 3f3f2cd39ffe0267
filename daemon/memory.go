package daemon

import (
	"context"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/protocol"
)

// memoryList lists the project's memories for the editor, which opens
// their files itself.
func (s *server) memoryList(context.Context, *protocol.None) (protocol.MemoryListResult, error) {
	store := s.env.Memory
	out := protocol.MemoryListResult{Memories: []protocol.MemoryInfo{}}
	if store == nil {
		return out, nil
	}
	out.Dir = store.Dir()
	ms, err := store.List()
	if err != nil {
		return protocol.MemoryListResult{}, jsonrpc2.Errorf(jsonrpc2.InternalError, "reading the memory folder: %v", err)
	}
	for _, m := range ms {
		info := protocol.MemoryInfo{
			Name: m.Name, Path: m.Path, Type: string(m.Meta.Type), Description: m.Meta.Description,
			Updated: m.Updated().UTC(), Source: m.Meta.Source,
		}
		if m.Err != nil {
			info.Error = m.Err.Error()
		}
		out.Memories = append(out.Memories, info)
	}
	return out, nil
}
