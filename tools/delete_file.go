package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type deleteFileArgs struct {
	Path string `json:"path" jsonschema:"The file to delete: relative to the workspace folder, or absolute. Every line of it must have been read with read_file."`
}

//go:embed delete_file.md
var deleteFileDoc string

// DeleteFile is the delete_file tool.
var DeleteFile = tool.New(tool.Def[deleteFileArgs]{
	Name:            "delete_file",
	Doc:             deleteFileDoc,
	UserDescription: "Delete a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first",
	ChangesFiles:    true,
	Describe:        func(a deleteFileArgs) string { return "Deleting " + a.Path },
	Run:             runDeleteFile,
})

func runDeleteFile(ctx context.Context, c *tool.Call, a deleteFileArgs) (tool.Result, error) {
	loc, _, err := c.LocatePlainFile(a.Path, "delete", "delete_file never deletes directories. Delete the files in it one by one, or ask the user to remove the folder.")
	if err != nil {
		return tool.Result{}, err
	}
	cur, err := c.LoadForChange(loc, "delete", tool.FullRead)
	if err != nil {
		return tool.Result{}, err
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	return c.Apply(ctx, &tool.Plan{
		Title:   "Delete " + name,
		Changes: []tool.Change{{Kind: tool.Delete, Path: loc, Before: cur.Data, BeforeInfo: cur.Info, Existed: true}},
		Done:    fmt.Sprintf("Deleted %s (%s).", name, lineCount(textfile.CountLines(cur.Data))),
	})
}
