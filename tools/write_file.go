package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

type writeFileArgs struct {
	Path    string `json:"path" jsonschema:"File to write: relative to the workspace folder, or absolute. Missing parent folders are created."`
	Content string `json:"content" jsonschema:"The text to write: the whole file, or with append the part to add at its end."`
	Append  bool   `json:"append,omitempty" jsonschema:"Add content to the end of the file instead of replacing it (creating the file if it is missing). Needs no prior read. Default false."`
}

// WriteFile is the write_file tool.
var WriteFile = New(Def[writeFileArgs]{
	Name: "write_file",
	Description: `Create a file, replace a whole file, or add to the end of one with append=true. Missing parent folders are created. ` +
		`Replacing an existing file needs every line of it read with read_file first, and no change on disk since; to change part of a file use edit_file instead. Appending needs no read. ` +
		`One call carries at most half of the output budget (the error names the limit): write a long file in sections, the first with write_file and each next one with append=true. Appended text is added as is, so end each section with a line break. ` +
		`An existing file keeps its line endings (LF or CRLF) and byte-order mark. Text files inside the workspace only. The user approves each change, seeing a diff.`,
	UserDescription: "Create or overwrite a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first, with a unified diff",
	Describe: func(a writeFileArgs) string {
		if a.Append {
			return "Appending to " + a.Path
		}
		return "Writing " + a.Path
	},
	Run: runWriteFile,
})

func runWriteFile(ctx context.Context, c *Call, a writeFileArgs) Result {
	if limit := c.Budget.WriteChars(); len(a.Content) > limit {
		return Errorf("content is %d bytes, over the %d-byte limit for one write_file call (half of the output budget, so a long file is never cut off mid-way). "+
			"Write it in sections of under %d bytes: the first with write_file, each next one with write_file append=true. Nothing was written.", len(a.Content), limit, limit)
	}
	if textfile.IsBinary([]byte(a.Content)) {
		return Errorf("content contains NUL bytes; write_file writes text files only. Nothing was written.")
	}
	loc, err := c.LocateWrite(a.Path)
	if err != nil {
		return Errorf("%v", err)
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	fi, err := os.Stat(loc.Real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c.createFile(ctx, loc, name, a.Content)
	case err != nil:
		return Errorf("cannot open %s: %v", name, err)
	case fi.IsDir():
		return Errorf("%s is a directory. Give the path of a file, for example %s/name.ext", name, strings.TrimSuffix(name, "/"))
	}
	if a.Append {
		return c.appendFile(ctx, loc, name, a.Content)
	}
	return c.overwriteFile(ctx, loc, name, a.Content)
}

func (c *Call) createFile(ctx context.Context, loc workspace.Location, name, content string) Result {
	return c.Apply(ctx, &Plan{
		Title:   "Create " + name,
		Changes: []Change{{Op: OpWrite, Path: loc, After: []byte(content), FullyKnown: true}},
		Done:    fmt.Sprintf("Created %s (%s).", name, lineCount(textfile.CountLines([]byte(content)))),
	})
}

func (c *Call) overwriteFile(ctx context.Context, loc workspace.Location, name, content string) Result {
	cur, err := c.loadForChange(loc, "overwrite", fullRead)
	if err != nil {
		return Errorf("%v", err)
	}
	text := strings.TrimPrefix(content, textfile.BOM)
	if hasLineBreak(cur.text) {
		text = textfile.ToEOL(text, textfile.Detect(cur.text).EOL)
	}
	after := cur.withBOM([]byte(text))
	if bytes.Equal(after, cur.data) {
		return Text(fmt.Sprintf("%s already holds exactly this content; nothing was written.", name))
	}
	return c.Apply(ctx, &Plan{
		Title:   "Overwrite " + name,
		Changes: []Change{{Op: OpWrite, Path: loc, Before: cur.data, Existed: true, After: after, FullyKnown: true}},
		Done:    fmt.Sprintf("Wrote %s: %s, replacing the previous %s.", name, lineCount(textfile.CountLines(after)), lineCount(textfile.CountLines(cur.data))),
	})
}

func (c *Call) appendFile(ctx context.Context, loc workspace.Location, name, content string) Result {
	cur, err := c.loadForChange(loc, "append to", noRead)
	if err != nil {
		return Errorf("%v", err)
	}
	text := content
	if len(cur.data) > 0 {
		// A byte-order mark belongs at the start of a file only.
		text = strings.TrimPrefix(text, textfile.BOM)
	}
	if hasLineBreak(cur.text) {
		text = textfile.ToEOL(text, textfile.Detect(cur.text).EOL)
	}
	if text == "" {
		return Text(fmt.Sprintf("content is empty, so there is nothing to append to %s; nothing was written.", name))
	}
	after := append(bytes.Clone(cur.data), text...)
	done := fmt.Sprintf("Appended %s to %s; it now has %s.", lineCount(textfile.CountLines([]byte(text))), name, lineCount(textfile.CountLines(after)))
	if len(cur.data) > 0 && cur.data[len(cur.data)-1] != '\n' {
		done += fmt.Sprintf(" %s did not end with a line break, so the appended text continues its last line.", name)
	}
	return c.Apply(ctx, &Plan{
		Title:   "Append to " + name,
		Changes: []Change{{Op: OpWrite, Path: loc, Before: cur.data, Existed: true, After: after}},
		Done:    done,
	})
}

// lineCount writes a number of lines: "1 line", "2 lines".
func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
