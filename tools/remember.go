package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type rememberArgs struct {
	Name        string    `json:"name" jsonschema:"The memory's name: a short lowercase slug, like build-cache. An existing name updates that memory."`
	Text        string    `json:"text" jsonschema:"The memory itself, in Markdown. It replaces the memory's text."`
	Description *string   `json:"description,omitempty" jsonschema:"One line saying what the memory is about, shown in listings. Leave it out to keep the current one; empty removes it."`
	Type        *string   `json:"type,omitempty" jsonschema:"What the memory is about. Leave it out to keep the current type; empty removes it."`
	Keywords    *string   `json:"keywords,omitempty" jsonschema:"Comma-separated aliases a search should find the memory by. Leave it out to keep the current ones; empty removes them."`
	Related     *[]string `json:"related,omitempty" jsonschema:"Names of memories worth reading with this one. Leave it out to keep the current ones; an empty list removes them."`
}

//go:embed remember.md
var rememberDoc string

// Remember is the remember tool.
var Remember = tool.New(tool.Def[rememberArgs]{
	Name:            "remember",
	Doc:             rememberDoc,
	Data:            memoryData,
	UserDescription: "Save a durable fact to project memory",
	Risk:            protocol.RiskMedium,
	Permission:      "asks first; always asks in a request that read web content",
	ChangesFiles:    true,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["name"].MinLength = jsonschema.Ptr(1)
		s.Properties["name"].MaxLength = jsonschema.Ptr(memory.MaxNameLen + len(memory.Ext))
		s.Properties["text"].MinLength = jsonschema.Ptr(1)
		types := []any{""}
		for _, t := range memory.Types {
			types = append(types, string(t))
		}
		s.Properties["type"].Enum = types
	},
	Available: hasMemory,
	Describe:  func(a rememberArgs) string { return "Remembering " + a.Name },
	Run:       runRemember,
})

func runRemember(ctx context.Context, c *tool.Call, a rememberArgs) (tool.Result, error) {
	name, bad := memoryName(a.Name)
	if bad != nil {
		return *bad, nil
	}
	u := memory.Update{Text: a.Text, Description: a.Description, Related: a.Related}
	if a.Type != nil {
		t := memory.Type(strings.TrimSpace(*a.Type))
		u.Type = &t
	}
	if a.Keywords != nil {
		kw := memory.SplitList(*a.Keywords)
		u.Keywords = &kw
	}
	ignored, err := u.FromText()
	if err != nil {
		return tool.Failf("%v. Put the text alone in text, and description, type, keywords and related in their own arguments. Nothing was saved.", err), nil
	}
	store := c.Env.Memory
	loc, err := memoryFile(c, store.Path(name))
	if err != nil {
		return tool.Result{}, err
	}
	cur, err := store.Load(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return tool.Failf("Tether failed: reading memory %s failed because of a fault on this machine, not in your call (%v); nothing was saved. Tell the user.", name, err), err
	}
	if cur != nil && cur.Err != nil {
		return tool.Failf("%s, then save again. Nothing was saved.", brokenAdvice(c, cur)), nil
	}
	var curPage *memory.Page
	var curMod time.Time
	if cur != nil {
		curPage, curMod = &cur.Page, cur.ModTime
	}
	now := time.Now()
	page, err := memory.Merge(name, curPage, curMod, u, memory.Stamp{Now: now, Request: c.RequestID, Untrusted: c.Untrusted()})
	if err != nil {
		return tool.Failf("%v; nothing was saved.", err), nil
	}
	after := memory.Render(page)
	if err := memory.CheckSize(after, c.Env.Settings.MemoryMax()); err != nil {
		return tool.Failf("%v (the user's memoryMaxBytes setting). Shorten the text, or split the subject into several memories that name each other in related. Nothing was saved.", err), nil
	}
	if cur != nil && unchanged(cur, page) {
		return tool.Unchanged(fmt.Sprintf("Memory %s already holds exactly this; nothing was written.", name)), nil
	}

	ch := tool.Change{Kind: tool.Write, Path: loc, After: after, FullyKnown: true}
	title := "Create memory " + name
	done := fmt.Sprintf("Saved the new memory %s (%s).", name, tool.HumanBytes(int64(len(after))))
	if cur != nil {
		ch.Before, ch.Existed = cur.Raw, true
		title = "Update memory " + name
		done = fmt.Sprintf("Updated memory %s (%s).", name, tool.HumanBytes(int64(len(after))))
	} else if ms, err := store.List(); err == nil {
		if sim := memory.Similar(ms, name, maxSimilar); len(sim) > 0 {
			var lines []string
			for _, m := range sim {
				lines = append(lines, "  "+memorySummary(m, now))
			}
			done += "\nExisting memories like it:\n" + strings.Join(lines, "\n") +
				"\nIf one covers the same subject, merge this text into it with remember and archive " + name + " with memory_archive, so the subject lives in one place."
		}
	}
	if page.Meta.Source == memory.SourceWeb {
		done += " It is marked as written after reading web content."
	}
	if len(ignored) > 0 {
		done += fmt.Sprintf(" The frontmatter in your text set %s, which Tether sets itself; that was ignored.", joinAnd(ignored))
	}
	if missing := missingRelated(c, page.Meta.Related); len(missing) > 0 {
		done += fmt.Sprintf(" Its related list names %s, which no memory has (yet).", joinAnd(missing))
	}
	return c.Apply(ctx, &tool.Plan{Title: title, Changes: []tool.Change{ch}, Done: done})
}

// unchanged reports whether page says what cur already does, apart from
// the time of the write.
func unchanged(cur *memory.Memory, page memory.Page) bool {
	same := page
	same.Meta.Updated = cur.Meta.Updated
	same.Meta.Source, same.Meta.Pages = cur.Meta.Source, cur.Meta.Pages
	return bytes.Equal(memory.Render(same), memory.Render(cur.Page))
}

// missingRelated lists related names that are no memory.
func missingRelated(c *tool.Call, related []string) []string {
	var out []string
	for _, r := range related {
		if _, err := c.Env.Memory.Load(r); errors.Is(err, fs.ErrNotExist) {
			out = append(out, r)
		}
	}
	return out
}
