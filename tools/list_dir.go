package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/protocol"
)

type listDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"Folder to list, relative to the workspace folder or absolute. Default: the workspace folder."`
}

// ListDir is the list_dir tool.
var ListDir = New(Def[listDirArgs]{
	Name: "list_dir",
	Description: `List the entries of one folder, one a line, sorted by name. Folders end in /; a symbolic link shows its target after ->, with a / after the link's name when it leads to a folder. ` +
		`Everything in the folder is listed, hidden and .gitignore'd entries included (unlike glob and grep). Does not recurse: use glob (for example **/*.go) to find files at any depth, grep to search their contents. ` +
		`A very large folder is cut at the output budget with a count of what was left out.`,
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

func runListDir(ctx context.Context, c *Call, a listDirArgs) Result {
	arg := a.Path
	if arg == "" {
		arg = "."
	}
	loc, err := c.locate(arg)
	if err != nil {
		return Errorf("%v", err)
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	if err := c.permitRead(ctx, loc); err != nil {
		return Errorf("%v", err)
	}
	fi, err := os.Stat(loc.Real)
	switch {
	case os.IsNotExist(err):
		return Errorf("%s does not exist. List its parent folder, or find it with glob", name)
	case err != nil:
		return Errorf("cannot open %s: %v", name, err)
	case !fi.IsDir():
		return Errorf("%s is a file, not a folder. Read it with read_file, or list its folder %s", name, c.Env.Workspace.Rel(filepath.Dir(loc.Abs)))
	}
	entries, err := os.ReadDir(loc.Real)
	if err != nil && len(entries) == 0 {
		return Errorf("cannot list %s: %v", name, err)
	}
	if ctx.Err() != nil {
		return cancelled("list_dir")
	}
	if len(entries) == 0 {
		return Text(fmt.Sprintf("%s is empty.", folderName(name)))
	}

	room := c.Budget.OutputChars() - footerRoom
	var b strings.Builder
	shown := 0
	for i, e := range entries {
		if i%1024 == 0 && ctx.Err() != nil {
			return cancelled("list_dir")
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
	return Text(b.String())
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
