package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/tether-dev/tether/internal/edit"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type editFileArgs struct {
	Path       string `json:"path" jsonschema:"File to edit: relative to the workspace folder, or absolute. It must have been read with read_file."`
	OldString  string `json:"old_string" jsonschema:"The exact text to replace, copied from the file without read_file's line-number gutter. Include enough surrounding lines to make it unique."`
	NewString  string `json:"new_string" jsonschema:"The text to put in its place. Empty deletes old_string."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence instead of requiring exactly one. Default false."`
}

//go:embed edit_file.md
var editFileDoc string

// EditFile is the edit_file tool.
var EditFile = tool.New(tool.Def[editFileArgs]{
	Name:            "edit_file",
	Doc:             editFileDoc,
	UserDescription: "Replace text in a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first, with a unified diff",
	ChangesFiles:    true,
	Describe:        func(a editFileArgs) string { return "Editing " + a.Path },
	Run: func(ctx context.Context, c *tool.Call, a editFileArgs) (tool.Result, error) {
		return runEdits(ctx, c, a.Path, []edit.Edit{{Old: a.OldString, New: a.NewString, ReplaceAll: a.ReplaceAll}})
	},
})

// runEdits applies edits in order to the file's content in memory and
// writes the result through Apply, or nothing if any edit fails.
func runEdits(ctx context.Context, c *tool.Call, path string, edits []edit.Edit) (tool.Result, error) {
	for i, e := range edits {
		if msg := malformed(e); msg != "" {
			return tool.Failf("%s%s", editLabel(i, len(edits)), msg), nil
		}
	}
	loc, err := c.LocateWrite(path)
	if err != nil {
		return tool.Result{}, err
	}
	name := c.Env.Workspace.Rel(loc.Abs)
	cur, err := c.LoadForChange(loc, "edit", tool.SomeRead)
	if err != nil {
		return tool.Result{}, err
	}
	text := cur.Text
	var last edit.Applied
	replaced := 0
	for i, e := range edits {
		if ctx.Err() != nil {
			return tool.Cancelled(c.Name), nil
		}
		applied, err := edit.Apply(text, e)
		if err != nil {
			msg := editLabel(i, len(edits)) + editFailure(name, text, e, err)
			if i > 0 {
				msg += fmt.Sprintf(" Edits apply in order, each to the result of the ones before, so line numbers here count the file with %s applied.", editsBefore(i))
				var nf *edit.NotFoundError
				if errors.As(err, &nf) && edit.Contains(cur.Text, e.Old) {
					msg += " This old_string is in the file on disk: an earlier edit in this call changed that text."
				}
			}
			if len(edits) > 1 {
				msg += " None of the edits were written: fix this one and send them all again."
			}
			return tool.Failf("%s", msg), nil
		}
		text, last = applied.Content, applied
		replaced += len(applied.Spans)
	}

	after := cur.WithBOM(text)
	if bytes.Equal(after, cur.Data) {
		return tool.Failf("the edits cancel out: together they leave %s exactly as it is, so nothing was written", name), nil
	}
	var done string
	switch {
	case len(edits) > 1:
		done = fmt.Sprintf("Edited %s: applied %d edits (%d replacements).", name, len(edits), replaced)
	case replaced == 1:
		done = fmt.Sprintf("Edited %s. The changed part now reads:\n%s", name, tool.Snippet(text, last.Spans[0]))
	default:
		done = fmt.Sprintf("Edited %s: replaced %d occurrences, starting on lines %s.", name, replaced, spanStarts(last.Spans))
	}
	return c.Apply(ctx, &tool.Plan{
		Title:   "Edit " + name,
		Changes: []tool.Change{{Kind: tool.Write, Path: loc, Before: cur.Data, BeforeInfo: cur.Info, Existed: true, After: after}},
		Done:    done,
	})
}

// editLabel names the failing edit of a multi_edit; a single edit needs no name.
func editLabel(i, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf("Edit %d of %d failed: ", i+1, n)
}

// editsBefore names the edits that ran before edit i (0-based).
func editsBefore(i int) string {
	if i == 1 {
		return "edit 1"
	}
	return fmt.Sprintf("edits 1-%d", i)
}

// malformed checks an edit that can be judged without the file.
func malformed(e edit.Edit) string {
	switch {
	case e.Old == "":
		return "old_string is empty. To create a file or replace all of one, use write_file; to insert text, put the neighbouring line in old_string and repeat it in new_string together with the addition."
	case e.Old == e.New:
		return "old_string and new_string are identical, so the edit would change nothing. Put the new text in new_string."
	}
	return ""
}

// maxLinesNamed caps the match lines an ambiguity error lists.
const maxLinesNamed = 20

// editFailure turns a failed edit into advice that gets the retry right.
func editFailure(name string, text []byte, e edit.Edit, err error) string {
	var amb *edit.AmbiguousError
	var nf *edit.NotFoundError
	switch {
	case errors.As(err, &amb):
		count := fmt.Sprint(amb.Count)
		if amb.Capped {
			count = "at least " + count
		}
		lines := intList(amb.Lines[:min(len(amb.Lines), maxLinesNamed)])
		if len(amb.Lines) > maxLinesNamed {
			lines += ", …"
		}
		return fmt.Sprintf("old_string occurs %s times in %s (on lines %s), and an edit must match exactly one place. Add surrounding lines to old_string so it matches only the one you mean, or set replace_all=true to change every occurrence. Nothing was changed.", count, name, lines)
	case errors.As(err, &nf):
		return notFound(name, text, e.Old)
	case errors.Is(err, edit.ErrNoChange):
		return fmt.Sprintf("the edit would leave %s unchanged: old_string and new_string differ only in line endings, and Tether always writes the file's own line endings. Nothing was changed.", name)
	}
	if msg := malformed(e); msg != "" {
		return msg
	}
	return fmt.Sprintf("editing %s failed: %v", name, err)
}

// notFound explains a miss with the closest region of the file.
func notFound(name string, text []byte, old string) string {
	r, ok := edit.Closest(text, old)
	if !ok {
		return fmt.Sprintf("old_string was not found in %s, and no part of the file resembles it. The file may have changed, or this may be the wrong file: read the part you want to change with read_file (or grep for a distinctive word of it) and copy the text exactly. Nothing was changed.", name)
	}
	var b strings.Builder
	if r.Exact {
		fmt.Fprintf(&b, "old_string was not found in %s as written, but it matches %s exactly once this is fixed: %s\n", name, lineSpan(r.Start, r.End), r.Notes[0])
		b.WriteString(r.Excerpt)
		b.WriteString("Nothing was changed.")
		return b.String()
	}
	fmt.Fprintf(&b, "old_string was not found in %s. The closest part of the file is %s (%.0f%% alike):\n", name, lineSpan(r.Start, r.End), r.Similarity*100)
	b.WriteString(r.Excerpt)
	b.WriteString("What differs:\n")
	for _, n := range r.Notes {
		b.WriteString("- " + n + "\n")
	}
	b.WriteString("Copy old_string exactly from the lines above (without the line-number gutter) and try again. Nothing was changed.")
	return b.String()
}

func lineSpan(start, end int) string {
	if start == end {
		return fmt.Sprintf("line %d", start)
	}
	return fmt.Sprintf("lines %d-%d", start, end)
}

func spanStarts(spans []edit.Span) string {
	lines := make([]int, 0, min(len(spans), maxLinesNamed))
	for _, s := range spans[:min(len(spans), maxLinesNamed)] {
		lines = append(lines, s.Start)
	}
	out := intList(lines)
	if len(spans) > maxLinesNamed {
		out += ", …"
	}
	return out
}

func intList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}
