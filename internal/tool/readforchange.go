package tool

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/tether-dev/tether/internal/edit"
	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/workspace"
)

// maxChangeBytes is the largest file the file-changing tools load: an edit
// holds the old and new content, its diff and the approval's copies in
// memory at once.
const maxChangeBytes = 64 << 20

// ReadNeed is what the agent must have read of a file before a change.
type ReadNeed int

const (
	NoRead   ReadNeed = iota // appending touches nothing already there
	SomeRead                 // an edit: any part, so it has seen the file
	FullRead                 // an overwrite or a delete: every line
)

// Current is an existing file as a change found it.
type Current struct {
	Info fs.FileInfo
	// Data is the file's bytes as on disk; a change must find exactly these
	// when it is applied.
	Data []byte
	// BOM says Data starts with a UTF-8 byte-order mark; Text is Data
	// without it, which is what the agent saw through read_file.
	BOM  bool
	Text []byte
}

// LoadForChange reads an existing file a tool is about to change, after the
// guardrails every such change shares: a regular text file, read as much as
// need says, and unchanged since.
//
// The file is read beneath its workspace folder's os.Root, never waiting on
// a named pipe, and a read-only file is refused here, before anyone is
// asked to approve a change that could not be written.
func (c *Call) LoadForChange(loc workspace.Location, verb string, need ReadNeed) (Current, error) {
	name := c.Env.Workspace.Rel(loc.Abs)
	fi, err := StatFile(loc, name)
	if err != nil {
		return Current{}, err
	}
	if fsatomic.IsReadOnly(fi) {
		return Current{}, Refusef("%s", ReadOnlyAdvice(name))
	}
	if fi.Size() > maxChangeBytes {
		return Current{}, Refusef("%s is %s, over the %s Tether will %s; change it with the shell instead, if the user agrees", name, HumanBytes(fi.Size()), HumanBytes(maxChangeBytes), verb)
	}
	root, rel, err := c.confine(loc.Real)
	if err != nil {
		return Current{}, Refusef("%s is outside the workspace folders; Tether only changes files inside them", name)
	}
	data, _, err := fsatomic.ReadFileIn(root, rel, maxChangeBytes+1)
	if err != nil {
		return Current{}, FileTrouble("read", name, err)
	}
	if textfile.IsBinary(data) {
		return Current{}, Refusef("%s is a binary file, which read_file cannot show, so Tether will not %s it; Tether changes text files only. Ask the user if it must change", name, verb)
	}
	if need != NoRead {
		if err := c.RequireRead(loc, fi, data, need == FullRead, verb); err != nil {
			return Current{}, err
		}
	}
	// The file may change between the stat and the read; what was read
	// must be what the read record describes.
	now, err := os.Stat(loc.Real)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Current{}, FileTrouble("open", name, err)
	}
	if err != nil || !now.ModTime().Equal(fi.ModTime()) || now.Size() != int64(len(data)) {
		return Current{}, Refusef("%s changed on disk while Tether was reading it; read it again with read_file, then redo the change", name)
	}
	text := textfile.StripBOM(data)
	return Current{Info: fi, Data: data, BOM: len(text) < len(data), Text: text}, nil
}

// WithBOM puts back the byte-order mark the file had.
func (cur Current) WithBOM(text []byte) []byte {
	if !cur.BOM {
		return text
	}
	return append([]byte(textfile.BOM), text...)
}

// HasLineBreak reports whether b has any line break, so its ending is known.
func HasLineBreak(b []byte) bool { return bytes.IndexByte(b, '\n') >= 0 }

// Caps on the excerpt of changed lines shown after an edit.
const (
	maxSnippetLines     = 16
	maxSnippetLineBytes = 240
)

// Snippet shows the lines around span of text in read_file's gutter, so the
// model can check an edit without reading the file again. It starts from
// the span's offset, so it costs the same at the end of a large file as at
// its start.
func Snippet(text []byte, span edit.Span) string {
	from := max(1, span.Start-2)
	to := min(max(span.End, span.Start-1)+2, from+maxSnippetLines-1)
	// Step back from the start of the span's line to the start of line from.
	p := bytes.LastIndexByte(text[:span.Offset], '\n') + 1
	for line := span.Start; line > from; line-- {
		p = bytes.LastIndexByte(text[:p-1], '\n') + 1
	}
	var b strings.Builder
	for line := from; line <= to && p < len(text); line++ {
		next := len(text)
		if i := bytes.IndexByte(text[p:], '\n'); i >= 0 {
			next = p + i + 1
		}
		l := strings.TrimSuffix(strings.TrimSuffix(string(text[p:next]), "\n"), "\r")
		if len(l) > maxSnippetLineBytes {
			l = CutUTF8(l[:maxSnippetLineBytes]) + " …"
		}
		b.WriteString(strconv.Itoa(line) + "\t" + l + "\n")
		p = next
	}
	return b.String()
}

// LocatePlainFile resolves a path that must name a regular file itself,
// inside the workspace: not a folder (dirAdvice says what to do instead),
// and not a symbolic link, because moving or deleting through a link would
// act on whatever it points to rather than on the path the model named.
func (c *Call) LocatePlainFile(arg, verb, dirAdvice string) (workspace.Location, fs.FileInfo, error) {
	abs, err := c.Abs(arg)
	if err != nil {
		return workspace.Location{}, nil, err
	}
	name := c.Env.Workspace.Rel(abs)
	if li, err := os.Lstat(abs); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(abs)
		return workspace.Location{}, nil, Refusef("%s is a symbolic link (to %s); Tether will not %s a link, nor what it points to. Ask the user if the link itself should change", name, target, verb)
	}
	loc, err := c.LocateWrite(arg)
	if err != nil {
		return loc, nil, err
	}
	fi, err := os.Lstat(loc.Real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return loc, nil, Refusef("%s does not exist. Check the path with glob or list_dir", name)
	case err != nil:
		return loc, nil, FileTrouble("open", name, err)
	case fi.IsDir():
		return loc, nil, Refusef("%s is a directory; %s", name, dirAdvice)
	case !fi.Mode().IsRegular():
		return loc, nil, Refusef("%s is not a regular file but %s; Tether will not %s it", name, fsatomic.DescribeType(fi.Mode()), verb)
	}
	return loc, fi, nil
}
