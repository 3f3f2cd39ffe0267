package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unsafe"

	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

type writeFileArgs struct {
	Path    string `json:"path" jsonschema:"File to write: relative to the workspace folder, or absolute. Missing parent folders are created."`
	Content string `json:"content" jsonschema:"The text to write: the whole file, or with append the part to add at its end."`
	Append  bool   `json:"append,omitempty" jsonschema:"Add content to the end of the file instead of replacing it (creating the file if it is missing). Needs no prior read. Default false."`
}

//go:embed write_file.md
var writeFileDoc string

// WriteFile is the write_file tool.
var WriteFile = tool.New(tool.Def[writeFileArgs]{
	Name:            "write_file",
	Doc:             writeFileDoc,
	UserDescription: "Create or overwrite a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first, with a unified diff",
	ChangesFiles:    true,
	Describe: func(a writeFileArgs) string {
		if a.Append {
			return "Appending to " + a.Path
		}
		return "Writing " + a.Path
	},
	Run: runWriteFile,
})

func runWriteFile(ctx context.Context, c *tool.Call, a writeFileArgs) (tool.Result, error) {
	if limit := c.Budget.WriteChars(); len(a.Content) > limit {
		return tool.Failf("content is %d bytes, over the %d-byte limit for one write_file call (half of the output budget, so a long file is never cut off mid-way). "+
			"Write it in sections of under %d bytes: the first with write_file, each next one with write_file append=true. Nothing was written.", len(a.Content), limit, limit), nil
	}
	// Only the part IsBinary looks at is copied, not the whole content.
	if textfile.IsBinary([]byte(a.Content[:min(len(a.Content), textfile.SniffLen)])) {
		return tool.Failf("content contains NUL bytes; write_file writes text files only. Nothing was written."), nil
	}
	loc, err := c.LocateWrite(a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	fi, err := os.Stat(loc.Real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return createFile(ctx, c, loc, name, a.Content)
	case err != nil:
		return tool.Result{}, tool.FileTrouble("open", name, err)
	case fi.IsDir():
		return tool.Failf("%s is a directory. Give the path of a file, for example %s/name.ext", name, strings.TrimSuffix(name, "/")), nil
	}
	if a.Append {
		return appendFile(ctx, c, loc, name, a.Content)
	}
	return overwriteFile(ctx, c, loc, name, a.Content)
}

func createFile(ctx context.Context, c *tool.Call, loc workspace.Location, name, content string) (tool.Result, error) {
	after := stringBytes(content)
	return c.Apply(ctx, &tool.Plan{
		Title:   "Create " + name,
		Changes: []tool.Change{{Kind: tool.Write, Path: loc, After: after, FullyKnown: true}},
		Done:    fmt.Sprintf("Created %s (%s).", name, lineCount(textfile.CountLines(after))),
	})
}

func overwriteFile(ctx context.Context, c *tool.Call, loc workspace.Location, name, content string) (tool.Result, error) {
	cur, err := c.LoadForChange(loc, "overwrite", tool.FullRead)
	if err != nil {
		return tool.Result{}, err
	}
	text := strings.TrimPrefix(content, textfile.BOM)
	if tool.HasLineBreak(cur.Text) {
		text = textfile.ToEOL(text, textfile.Detect(cur.Text).EOL)
	}
	after := cur.WithBOM(stringBytes(text))
	if bytes.Equal(after, cur.Data) {
		return tool.Unchanged(fmt.Sprintf("%s already holds exactly this content; nothing was written.", name)), nil
	}
	return c.Apply(ctx, &tool.Plan{
		Title:   "Overwrite " + name,
		Changes: []tool.Change{{Kind: tool.Write, Path: loc, Before: cur.Data, BeforeInfo: cur.Info, Existed: true, After: after, FullyKnown: true}},
		Done:    fmt.Sprintf("Wrote %s: %s, replacing the previous %s.", name, lineCount(textfile.CountLines(after)), lineCount(textfile.CountLines(cur.Data))),
	})
}

func appendFile(ctx context.Context, c *tool.Call, loc workspace.Location, name, content string) (tool.Result, error) {
	cur, err := c.LoadForChange(loc, "append to", tool.NoRead)
	if err != nil {
		return tool.Result{}, err
	}
	text := content
	if len(cur.Data) > 0 {
		// A byte-order mark belongs at the start of a file only.
		text = strings.TrimPrefix(text, textfile.BOM)
	}
	if tool.HasLineBreak(cur.Text) {
		text = textfile.ToEOL(text, textfile.Detect(cur.Text).EOL)
	}
	if text == "" {
		return tool.Unchanged(fmt.Sprintf("content is empty, so there is nothing to append to %s; nothing was written.", name)), nil
	}
	after := append(bytes.Clone(cur.Data), text...)
	done := fmt.Sprintf("Appended %s to %s; it now has %s.", lineCount(textfile.CountLines(stringBytes(text))), name, lineCount(textfile.CountLines(after)))
	if len(cur.Data) > 0 && cur.Data[len(cur.Data)-1] != '\n' {
		done += fmt.Sprintf(" %s did not end with a line break, so the appended text continues its last line.", name)
	}
	return c.Apply(ctx, &tool.Plan{
		Title:   "Append to " + name,
		Changes: []tool.Change{{Kind: tool.Write, Path: loc, Before: cur.Data, BeforeInfo: cur.Info, Existed: true, After: after}},
		Done:    done,
	})
}

// stringBytes is the bytes of s, not copied: a write's content is up to
// tens of megabytes, and copying it (a fresh allocation the kernel must
// first fault in) cost a twentieth of a 1 MiB overwrite. Nothing changes
// a Change's After in place, so the string stays as it was.
func stringBytes(s string) []byte {
	if s == "" {
		return []byte{} // an empty file's content, never nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// lineCount writes a number of lines: "1 line", "2 lines".
func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
