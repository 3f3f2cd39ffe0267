package tools

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type listDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"Folder to list, relative to the workspace folder or absolute. Default: the workspace folder."`
}

//go:embed list_dir.md
var listDirDoc string

// ListDir is the list_dir tool.
var ListDir = tool.New(tool.Def[listDirArgs]{
	Name:            "list_dir",
	Doc:             listDirDoc,
	UserDescription: "List a folder",
	Risk:            protocol.RiskLow,
	Permission:      "auto",
	ReadOnly:        true,
	Describe: func(a listDirArgs) string {
		if a.Path == "" {
			return "Listing the workspace folder"
		}
		return "Listing " + a.Path
	},
	Run: runListDir,
})

func runListDir(ctx context.Context, c *tool.Call, a listDirArgs) (tool.Result, error) {
	arg := a.Path
	if arg == "" {
		arg = "."
	}
	loc, err := c.Locate(arg)
	if err != nil {
		return tool.Result{}, err
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	if err := c.PermitRead(ctx, loc); err != nil {
		return tool.Result{}, err
	}
	fi, err := os.Stat(loc.Real)
	switch {
	case os.IsNotExist(err):
		return tool.Failf("%s does not exist. List its parent folder, or find it with glob", name), nil
	case err != nil:
		return tool.Result{}, tool.FileTrouble("open", name, err)
	case !fi.IsDir():
		return tool.Failf("%s is a file, not a folder. Read it with read_file, or list its folder %s", name, c.Env.Workspace.Rel(filepath.Dir(loc.Abs))), nil
	}
	entries, err := os.ReadDir(loc.Real)
	if err != nil && len(entries) == 0 {
		return tool.Result{}, tool.FileTrouble("list", name, err)
	}
	if ctx.Err() != nil {
		return tool.Cancelled("list_dir"), nil
	}
	if len(entries) == 0 {
		return tool.Text(fmt.Sprintf("%s is empty.", folderName(name))), nil
	}

	room := c.Budget.OutputChars() - footerRoom
	var b strings.Builder
	shown := 0
	for i, e := range entries {
		if i%1024 == 0 && ctx.Err() != nil {
			return tool.Cancelled("list_dir"), nil
		}
		line := describeEntry(loc.Real, e) + "\n"
		if b.Len()+len(line) > room {
			break
		}
		b.WriteString(line)
		shown++
	}
	if left := entries[shown:]; len(left) > 0 {
		dirs := 0
		for _, e := range left {
			if e.IsDir() {
				dirs++
			}
		}
		fmt.Fprintf(&b, "[%d more entries not shown (%d folders, %d others): the output budget is full. Use glob with a pattern to find what you need in %s.]\n", len(left), dirs, len(left)-dirs, folderName(name))
	}
	return tool.Text(b.String()), nil
}

// describeEntry renders one entry: "name", "name/" for a folder,
// "name -> target" for a link ("name/ -> target" when it leads to a
// folder), and the kind for anything that is not a file.
func describeEntry(dir string, e fs.DirEntry) string {
	name := e.Name()
	t := e.Type()
	switch {
	case t.IsDir():
		return name + "/"
	case t&fs.ModeSymlink != 0:
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			return name + " -> (unreadable link)"
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		switch {
		case err != nil:
			return name + " -> " + target + " (broken link)"
		case fi.IsDir():
			return name + "/ -> " + target
		}
		return name + " -> " + target
	case t&fs.ModeNamedPipe != 0:
		return name + " (named pipe)"
	case t&fs.ModeSocket != 0:
		return name + " (socket)"
	case t&fs.ModeDevice != 0:
		return name + " (device)"
	}
	return name
}

// folderName names a folder for messages.
func folderName(name string) string {
	if name == "." {
		return "the workspace folder"
	}
	return name
}
