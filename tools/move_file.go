package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type moveFileArgs struct {
	From string `json:"from" jsonschema:"The file to move: relative to the workspace folder, or absolute."`
	To   string `json:"to" jsonschema:"Its new path, including the file name. Must not exist yet; missing folders are created."`
}

//go:embed move_file.md
var moveFileDoc string

// MoveFile is the move_file tool.
var MoveFile = tool.New(tool.Def[moveFileArgs]{
	Name:            "move_file",
	Doc:             moveFileDoc,
	UserDescription: "Move or rename a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first",
	ChangesFiles:    true,
	Describe:        func(a moveFileArgs) string { return "Moving " + a.From + " to " + a.To },
	Run:             runMoveFile,
})

func runMoveFile(ctx context.Context, c *tool.Call, a moveFileArgs) (tool.Result, error) {
	from, _, err := c.LocatePlainFile(a.From, "move", "move_file moves one file at a time. To move a whole folder, use the shell.")
	if err != nil {
		return tool.Result{}, err
	}
	to, err := c.LocateWrite(a.To)
	if err != nil {
		return tool.Result{}, err
	}
	ws := c.Env.Workspace
	fromName, toName := ws.Rel(from.Abs), ws.Rel(to.Abs)
	if to.Real == from.Real {
		return tool.Failf("%s and %s are the same file; nothing to move", fromName, toName), nil
	}
	switch fi, err := os.Lstat(to.Real); {
	case err == nil && fi.IsDir():
		return tool.Failf("%s is an existing directory. Give the full new path including the file name, for example %s/%s", toName, toName, filepath.Base(from.Abs)), nil
	case err == nil:
		return tool.Failf("%s already exists, and move_file never overwrites. Choose another name; if the existing file should go, read it and delete it with delete_file first", toName), nil
	case !errors.Is(err, fs.ErrNotExist):
		return tool.Result{}, tool.FileTrouble("check", toName, err)
	}
	return c.Apply(ctx, &tool.Plan{
		Title:   fmt.Sprintf("Move %s to %s", fromName, toName),
		Changes: []tool.Change{{Kind: tool.Move, Path: to, From: from, Existed: true}},
		Done:    fmt.Sprintf("Moved %s to %s. What you read of it still holds under the new path.", fromName, toName),
	})
}
