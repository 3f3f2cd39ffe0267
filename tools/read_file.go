package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/textfile"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// MaxReadBytes is the largest file read_file shows without a line range.
const MaxReadBytes = 2 << 20

type readFileArgs struct {
	Path   string `json:"path" jsonschema:"File to read: relative to the workspace folder, or absolute."`
	Offset int    `json:"offset,omitempty" jsonschema:"First line to show, 1-based. Default: the first line."`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many lines to show. Default: as many as fit in the output budget."`
}

//go:embed read_file.md
var readFileDoc string

// ReadFile is the read_file tool.
var ReadFile = tool.New(tool.Def[readFileArgs]{
	Name:            "read_file",
	Doc:             readFileDoc,
	Data:            func(*tool.Settings) any { return struct{ MaxReadBytes int }{MaxReadBytes} },
	UserDescription: "Read a file with line numbers",
	Risk:            protocol.RiskLow,
	Permission:      "auto inside the workspace, asks outside",
	ReadOnly:        true,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["offset"].Minimum = jsonschema.Ptr(1.0)
		s.Properties["limit"].Minimum = jsonschema.Ptr(1.0)
	},
	Describe: func(a readFileArgs) string {
		if a.Offset > 0 || a.Limit > 0 {
			return fmt.Sprintf("Reading %s from line %d", a.Path, max(a.Offset, 1))
		}
		return "Reading " + a.Path
	},
	Run: runReadFile,
})

func runReadFile(ctx context.Context, c *tool.Call, a readFileArgs) (tool.Result, error) {
	loc, err := c.Locate(a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	if err := c.PermitRead(ctx, loc); err != nil {
		return tool.Result{}, err
	}
	// Only a regular file is read, and opening never waits: a named pipe
	// with no writer would otherwise hold the call forever, past any
	// cancellation. The FileInfo is the open file's, so the read record
	// describes exactly what is read.
	f, fi, err := fsatomic.OpenRegular(loc.Real)
	if err != nil {
		if _, serr := tool.StatFile(loc, name); serr != nil {
			return tool.Result{}, serr
		}
		if errors.Is(err, fsatomic.ErrNotRegular) {
			return tool.Failf("%s is not a regular file (%v); read_file reads files only", name, err), nil
		}
		return tool.Result{}, tool.FileTrouble("open", name, err)
	}
	defer f.Close()
	ranged := a.Offset > 0 || a.Limit > 0
	if fi.Size() > MaxReadBytes && !ranged {
		return tool.Failf("%s is %s, over read_file's 2 MB limit for a whole-file read. Read a part with offset and limit (for example offset=1, limit=200), or use grep to find the lines you need", name, humanBytes(fi.Size())), nil
	}
	// The whole content goes through a hash (kept too, for a small file),
	// so a later change can tell a touched file from a changed one and
	// show what changed.
	seen := tool.NewContentHasher(fi.Size())
	br := readers.Get().(*bufio.Reader)
	br.Reset(io.TeeReader(sized(f, fi), seen))
	defer func() { br.Reset(nil); readers.Put(br) }()
	head, err := br.Peek(textfile.SniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		return tool.Result{}, tool.FileTrouble("read", name, err)
	}
	if textfile.IsBinary(head) {
		return tool.Failf("%s is a binary file (%s); read_file shows text only", name, humanBytes(fi.Size())), nil
	}

	offset := max(a.Offset, 1)
	budget := c.Budget.OutputChars()
	lineCap := max(budget/2, 200)
	var out strings.Builder
	// Room for the whole file plus gutters, within the budget: one allocation.
	out.Grow(int(min(fi.Size()+fi.Size()/8+64, int64(budget))))
	first, last, total := 0, 0, 0
	var cutLines []int
	invalid, stopped := false, false
	var lineBuf []byte
	for {
		if total%4096 == 0 && ctx.Err() != nil {
			return tool.Cancelled("read_file"), nil
		}
		line, full, err := readLine(br, lineBuf, lineCap)
		lineBuf = line
		if err != nil && len(line) == 0 && full == 0 {
			if errors.Is(err, io.EOF) {
				break
			}
			return tool.Result{}, tool.FileTrouble("read", name, err)
		}
		total++
		if total == 1 && bytes.HasPrefix(line, []byte(textfile.BOM)) {
			line, full = line[len(textfile.BOM):], full-len(textfile.BOM)
		}
		if total < offset || stopped || (a.Limit > 0 && total >= offset+a.Limit) {
			continue
		}
		text := bytes.TrimSuffix(line, []byte("\r"))
		var cut string
		if full > len(line) {
			text = []byte(tool.CutUTF8(string(text)))
			cut = fmt.Sprintf(" … [line cut: %d of %d bytes shown; use grep to search it]", len(line), full)
		}
		if !invalid && !utf8.Valid(text) {
			invalid = true
		}
		var num [20]byte
		gutter := strconv.AppendInt(num[:0], int64(total), 10)
		if out.Len()+len(gutter)+len(text)+len(cut)+2 > budget-300 && first != 0 {
			stopped = true
			continue
		}
		if first == 0 {
			first = total
		}
		last = total
		if cut != "" {
			cutLines = append(cutLines, total) // shown in part: not read
		}
		out.Write(gutter)
		out.WriteByte('\t')
		out.Write(text)
		out.WriteString(cut)
		out.WriteByte('\n')
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if total == 0 {
		c.Session.Record(loc.Real, fi, seen.Seen(), 0, 1, 0)
		return tool.Text(fmt.Sprintf("%s is empty (0 lines).", name)), nil
	}
	if first == 0 {
		return tool.Failf("offset %d is past the end of %s, which has %d lines. Use an offset from 1 to %d", offset, name, total, total), nil
	}
	c.Session.Record(loc.Real, fi, seen.Seen(), total, first, last, cutLines...)

	var notes []string
	if invalid {
		notes = append(notes, "the file is not valid UTF-8 (it may use another encoding); invalid bytes are shown as they are")
	}
	if len(cutLines) > 0 {
		what := "1 long line was"
		if len(cutLines) > 1 {
			what = fmt.Sprintf("%d long lines were", len(cutLines))
		}
		notes = append(notes, what+" cut (not read whole, so an overwrite or a delete of this file is refused; edit_file still works)")
	}
	if last < total {
		notes = append(notes, fmt.Sprintf("showing lines %d-%d of %d; continue with offset=%d", first, last, total, last+1))
	}
	if len(notes) > 0 {
		out.WriteString("[" + strings.Join(notes, "; ") + "]\n")
	}
	return tool.Text(out.String()), nil
}

// readers recycles read buffers: a read_file call is frequent and small, and
// a fresh 64 KB buffer each time costs more than the read itself.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// readLine reads one line (without its '\n') into buf, keeping at most
// limit bytes of it, and reports the line's full length, so a 2 MB single line costs
// limit bytes of memory, not 2 MB.
func readLine(br *bufio.Reader, buf []byte, limit int) (line []byte, full int, err error) {
	line = buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			chunk = chunk[:n-1]
		}
		full += len(chunk)
		if room := limit - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			return line, full, nil
		}
		return line, full, err
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// sized reads f up to the size its FileInfo gave: what is read is then the
// file the read record describes, even if it grows meanwhile, and the end
// is known without asking the system for it twice more. A size of 0 may
// not be the truth (files of /proc say 0 and have content): such a file is
// read to its end.
func sized(f *os.File, fi fs.FileInfo) io.Reader {
	if fi.Size() == 0 {
		return f
	}
	return io.LimitReader(f, fi.Size())
}
