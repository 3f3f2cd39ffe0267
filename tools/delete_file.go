package tools

import (
	"context"
	"fmt"

	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/protocol"
)

type deleteFileArgs struct {
	Path string `json:"path" jsonschema:"The file to delete: relative to the workspace folder, or absolute. Every line of it must have been read with read_file."`
}

// DeleteFile is the delete_file tool.
var DeleteFile = New(Def[deleteFileArgs]{
	Name: "delete_file",
	Description: `Delete one file inside the workspace. Every line of it must have been read with read_file first (the same rule as replacing it), and it must not have changed since. ` +
		`Never deletes folders; refuses symbolic links rather than deleting what they point to; text files only. The user approves each delete, and undo can bring the file back.`,
	UserDescription: "Delete a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first",
	Describe:        func(a deleteFileArgs) string { return "Deleting " + a.Path },
	Run:             runDeleteFile,
})

func runDeleteFile(ctx context.Context, c *Call, a deleteFileArgs) Result {
	loc, _, err := c.locatePlainFile(a.Path, "delete", "delete_file never deletes directories. Delete the files in it one by one, or ask the user to remove the folder.")
	if err != nil {
		return Errorf("%v", err)
	}
	cur, err := c.loadForChange(loc, "delete", fullRead)
	if err != nil {
		return Errorf("%v", err)
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	return c.Apply(ctx, &Plan{
		Title:   "Delete " + name,
		Changes: []Change{{Op: OpDelete, Path: loc, Before: cur.data, Existed: true}},
		Done:    fmt.Sprintf("Deleted %s (%s).", name, lineCount(textfile.CountLines(cur.data))),
	})
}
