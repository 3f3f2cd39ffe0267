package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
)

// What the memory tools share: where a memory is, how it is labelled for
// the model, how old it is.

// maxListed is how many memories an empty memory_search lists.
const maxListed = 100

// maxSimilar is how many similar memories a new one is answered with.
const maxSimilar = 3

// memoryData are the numbers the memory tools' descriptions state.
func memoryData(s *tool.Settings) any {
	return struct {
		MaxBytes, MaxNameLen, MaxHits, MaxLines, MaxListed, MaxSimilar int
		Types                                                          string
	}{s.MemoryMax(), memory.MaxNameLen, memory.MaxHits, memory.MaxExcerptLines, maxListed, maxSimilar, joinAnd(typeNames())}
}

// typeNames lists the memory types.
func typeNames() []string {
	types := make([]string, len(memory.Types))
	for i, t := range memory.Types {
		types[i] = string(t)
	}
	return types
}

// hasMemory offers the memory tools only where the project has a memory folder.
func hasMemory(env *tool.Env) bool { return env.Memory != nil }

// memoryName checks a name argument, with the rule as advice.
func memoryName(arg string) (string, *tool.Result) {
	name, err := memory.CheckName(strings.TrimSpace(arg))
	if err != nil {
		r := tool.Failf("%v: %s.", err, memory.NameRule)
		return "", &r
	}
	return name, nil
}

// memoryFile locates a memory's file for a change. A link that leads out
// of the memory folder is refused: memories are plain files there.
func memoryFile(c *tool.Call, path string) (workspace.Location, error) {
	real, err := workspace.Real(path)
	if err != nil {
		return workspace.Location{}, tool.FileTrouble("resolve the memory file", path, err)
	}
	if !c.Env.Memory.Holds(real) {
		return workspace.Location{}, tool.Refusef("the memory file %s leads to %s, outside the memory folder; Tether only writes plain files there. Ask the user to replace the link with a file.", path, real)
	}
	return workspace.Location{Abs: path, Real: real}, nil
}

// loadMemory reads a memory, telling the model what exists when it does
// not. A fault reading the folder is an error.
func loadMemory(c *tool.Call, name string) (*memory.Memory, *tool.Result, error) {
	m, err := c.Env.Memory.Load(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r := tool.Failf("there is no memory named %s.%s", name, suggestMemories(c, name))
		return nil, &r, nil
	case err != nil:
		r := tool.Failf("Tether failed: reading memory %s failed because of a fault on this machine, not in your call (%v). Tell the user.", name, err)
		return nil, &r, err
	}
	return m, nil, nil
}

// suggestMemories names memories like name, or says how to list them.
func suggestMemories(c *tool.Call, name string) string {
	ms, err := c.Env.Memory.List()
	if err != nil || len(ms) == 0 {
		return " This project has no memories yet."
	}
	if sim := memory.Similar(ms, name, maxSimilar); len(sim) > 0 {
		return " Similar names: " + memoryNames(sim) + ". memory_search with an empty query lists them all."
	}
	return " memory_search with an empty query lists the memories."
}

func memoryNames(ms []*memory.Memory) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// brokenAdvice says what to do about a memory whose frontmatter cannot be read.
func brokenAdvice(c *tool.Call, m *memory.Memory) string {
	return fmt.Sprintf("memory %s cannot be read as a memory (%v). It was edited by hand, and Tether leaves it exactly as it is: ask the user to fix %s", m.Name, m.Err, m.Path)
}

// memorySummary is one line about a memory for listings: its name, type,
// age and description.
func memorySummary(m *memory.Memory, now time.Time) string {
	var b strings.Builder
	b.WriteString(m.Name)
	var facts []string
	if m.Meta.Type != "" {
		facts = append(facts, string(m.Meta.Type))
	}
	facts = append(facts, "updated "+m.Updated().UTC().Format("2006-01-02")+", "+age(m.Updated(), now))
	if m.Meta.Source == memory.SourceWeb {
		facts = append(facts, "written after reading web content")
	}
	if m.Err != nil {
		facts = append(facts, "BROKEN: "+m.Err.Error())
	}
	fmt.Fprintf(&b, " (%s)", strings.Join(facts, ", "))
	if m.Meta.Description != "" {
		b.WriteString(": " + m.Meta.Description)
	}
	return b.String()
}

// age says how long ago t was, in the largest whole unit.
func age(t, now time.Time) string {
	d := now.Sub(t)
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	case d < 60*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day")
	case d < 2*365*24*time.Hour:
		return plural(int(d/(30*24*time.Hour)), "month")
	}
	return plural(int(d/(365*24*time.Hour)), "year")
}
