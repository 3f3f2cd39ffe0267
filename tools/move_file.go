package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/protocol"
)

type moveFileArgs struct {
	From string `json:"from" jsonschema:"The file to move: relative to the workspace folder, or absolute."`
	To   string `json:"to" jsonschema:"Its new path, including the file name. Must not exist yet; missing folders are created."`
}

// MoveFile is the move_file tool.
var MoveFile = New(Def[moveFileArgs]{
	Name: "move_file",
	Description: `Move or rename one file inside the workspace; missing folders on the way to the new path are created. ` +
		`It never overwrites: if the destination exists the move is refused, even if it appears at the last moment. ` +
		`Moves single regular files only, not folders or symbolic links. ` +
		`What you have read of the file stays valid under its new path, so you can edit it there without reading it again. The user approves each move.`,
	UserDescription: "Move or rename a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first",
	Describe:        func(a moveFileArgs) string { return "Moving " + a.From + " to " + a.To },
	Run:             runMoveFile,
})

func runMoveFile(ctx context.Context, c *Call, a moveFileArgs) Result {
	from, _, err := c.locatePlainFile(a.From, "move", "move_file moves one file at a time. To move a whole folder, use the shell.")
	if err != nil {
		return Errorf("%v", err)
	}
	to, err := c.LocateWrite(a.To)
	if err != nil {
		return Errorf("%v", err)
	}
	ws := c.Env.Workspace
	fromName, toName := ws.Rel(from.Abs), ws.Rel(to.Abs)
	if to.Real == from.Real {
		return Errorf("%s and %s are the same file; nothing to move", fromName, toName)
	}
	switch fi, err := os.Lstat(to.Real); {
	case err == nil && fi.IsDir():
		return Errorf("%s is an existing directory. Give the full new path including the file name, for example %s/%s", toName, toName, filepath.Base(from.Abs))
	case err == nil:
		return Errorf("%s already exists, and move_file never overwrites. Choose another name; if the existing file should go, read it and delete it with delete_file first", toName)
	case !errors.Is(err, fs.ErrNotExist):
		return Errorf("cannot check %s: %v", toName, err)
	}
	return c.Apply(ctx, &Plan{
		Title:   fmt.Sprintf("Move %s to %s", fromName, toName),
		Changes: []Change{{Op: OpMove, Path: to, From: from, Existed: true}},
		Done:    fmt.Sprintf("Moved %s to %s. What you read of it still holds under the new path.", fromName, toName),
	})
}
