package tools

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

//go:embed memory_archive.md
var memoryArchiveDoc string

// MemoryArchive is the memory_archive tool.
var MemoryArchive = tool.New(tool.Def[memoryNameArgs]{
	Name:            "memory_archive",
	Doc:             memoryArchiveDoc,
	Data:            memoryData,
	UserDescription: "Archive a project memory",
	Risk:            protocol.RiskMedium,
	Permission:      "asks first",
	ChangesFiles:    true,
	Tune:            func(s *jsonschema.Schema) { s.Properties["name"].MinLength = jsonschema.Ptr(1) },
	Available:       hasMemory,
	Describe:        func(a memoryNameArgs) string { return "Archiving memory " + a.Name },
	Run:             runMemoryArchive,
})

func runMemoryArchive(ctx context.Context, c *tool.Call, a memoryNameArgs) (tool.Result, error) {
	name, bad := memoryName(a.Name)
	if bad != nil {
		return *bad, nil
	}
	m, bad, err := loadMemory(c, name)
	if bad != nil {
		return *bad, err
	}
	from, err := memoryFile(c, m.Path)
	if err != nil {
		return tool.Result{}, err
	}
	to, err := memoryFile(c, c.Env.Memory.ArchivePath(name, time.Now()))
	if err != nil {
		return tool.Result{}, err
	}
	dest := c.Env.Memory.Display(to.Real)
	return c.Apply(ctx, &tool.Plan{
		Title:   "Archive memory " + name,
		Changes: []tool.Change{{Kind: tool.Move, From: from, Path: to, Existed: true}},
		Done:    fmt.Sprintf("Archived memory %s: it is now %s, out of listings and searches. Nothing was deleted; /undo or moving the file back restores it.", name, dest),
	})
}
