package compose

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/tool"
)

// Namespace is where Tether's own tools are found in a program:
// tools.tether.<name>.
const Namespace = "tether"

// Excluded are the tools a program cannot call: interactive, recursive and
// orchestration tools stay ordinary tools with their own lifecycle.
var Excluded = map[string]bool{"compose": true, "ask_user": true, "agent": true, "todo": true}

// Search paging: how many entries one search returns by default and at most.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
)

// Entry is one callable tool as search shows it.
type Entry struct {
	// Path is the exact expression to call: tools.tether.read_file.
	Path        string `json:"path"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Signature is TypeScript-style, generated from the JSON Schema.
	Signature string `json:"signature"`
	ReadOnly  bool   `json:"readOnly"`
}

// Catalog is the set of tools one program may call, captured when it
// starts: the tools the environment offers, less the excluded ones. Their
// descriptions and signatures are written only when a program searches.
type Catalog struct {
	reg   *tool.Registry
	env   *tool.Env
	names []string

	once    sync.Once
	entries []Entry
}

// NewCatalog captures the tools of reg that env offers.
func NewCatalog(reg *tool.Registry, env *tool.Env) *Catalog {
	c := &Catalog{reg: reg, env: env}
	for _, t := range reg.Tools() {
		if cond, ok := t.(tool.Conditional); ok && env != nil && !cond.Available(env) {
			continue
		}
		if !Excluded[t.Name()] {
			c.names = append(c.names, t.Name())
		}
	}
	return c
}

// Has reports whether name can be called.
func (c *Catalog) Has(name string) bool { return slices.Contains(c.names, name) }

// Names lists the callable tools, in registry order.
func (c *Catalog) Names() []string { return slices.Clone(c.names) }

// all describes every callable tool, once.
func (c *Catalog) all() []Entry {
	c.once.Do(func() {
		var s *tool.Settings
		if c.env != nil {
			s = &c.env.Settings
		}
		for _, name := range c.names {
			t, _ := c.reg.Lookup(name)
			info := t.Info(s)
			c.entries = append(c.entries, Entry{
				Path:        "tools." + Namespace + "." + info.Name,
				Namespace:   Namespace,
				Name:        info.Name,
				Description: firstParagraph(info.Description),
				Signature:   Signature("tools."+Namespace+"."+info.Name, info.InputSchema),
				ReadOnly:    info.ReadOnly,
			})
		}
	})
	return c.entries
}

// SearchArgs is what a program passes to search.
type SearchArgs struct {
	Query     string `json:"query"`
	Namespace string `json:"namespace"`
	Limit     int    `json:"limit"`
	Offset    int    `json:"offset"`
}

// SearchResult is one page of matches.
type SearchResult struct {
	Tools  []Entry `json:"tools"`
	Total  int     `json:"total"`
	Offset int     `json:"offset"`
	// NextOffset is where the next page starts; absent on the last page.
	NextOffset *int `json:"nextOffset,omitempty"`
}

// Search finds tools whose name or description holds every word of the
// query (an empty query lists them all), best matches first: a word in
// the name counts more than one in the description.
func (c *Catalog) Search(a SearchArgs) (SearchResult, error) {
	if a.Namespace != "" && a.Namespace != Namespace {
		return SearchResult{}, fmt.Errorf("there is no namespace %q; the namespace is %q", a.Namespace, Namespace)
	}
	if a.Limit < 0 || a.Offset < 0 {
		return SearchResult{}, fmt.Errorf("limit and offset must not be negative")
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	words := strings.Fields(strings.ToLower(a.Query))
	type hit struct {
		i, score int
	}
	var hits []hit
	entries := c.all()
	for i, e := range entries {
		name, desc := strings.ToLower(e.Name), strings.ToLower(e.Description)
		score := 0
		for _, w := range words {
			switch {
			case name == w || strings.ReplaceAll(name, "_", "") == w:
				score += 5
			case strings.Contains(name, w):
				score += 3
			case strings.Contains(desc, w):
				score++
			default:
				score = -1
			}
			if score < 0 {
				break
			}
		}
		if score >= 0 {
			hits = append(hits, hit{i, score})
		}
	}
	sort.SliceStable(hits, func(x, y int) bool { return hits[x].score > hits[y].score })
	res := SearchResult{Tools: []Entry{}, Total: len(hits), Offset: a.Offset}
	for k := a.Offset; k < len(hits) && len(res.Tools) < limit; k++ {
		res.Tools = append(res.Tools, entries[hits[k].i])
	}
	if next := a.Offset + len(res.Tools); next < len(hits) {
		res.NextOffset = &next
	}
	return res, nil
}

func firstParagraph(s string) string {
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// schema is the part of a JSON Schema signatures are written from.
type schema struct {
	Type        any                        `json:"type"`
	Description string                     `json:"description"`
	Properties  map[string]json.RawMessage `json:"properties"`
	Required    []string                   `json:"required"`
	Items       json.RawMessage            `json:"items"`
	Enum        []any                      `json:"enum"`
	Minimum     *float64                   `json:"minimum"`
	Maximum     *float64                   `json:"maximum"`
}

// parseSchema reads a schema; a boolean schema or one that does not parse
// is nil, written as unknown.
func parseSchema(raw json.RawMessage) *schema {
	var s schema
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &s
}

// Signature writes a tool's call as TypeScript: one object argument whose
// properties come from the JSON Schema, optional ones marked with ?, each
// with its description as a comment, and the result envelope.
func Signature(path string, raw json.RawMessage) string {
	s := parseSchema(raw)
	if s == nil || len(s.Properties) == 0 {
		return path + "(args?: {}): Promise<ToolResult>"
	}
	if len(s.Required) == 0 {
		return path + "(args?: " + tsObject(s, "") + "): Promise<ToolResult>"
	}
	return path + "(args: " + tsObject(s, "") + "): Promise<ToolResult>"
}

func tsObject(s *schema, indent string) string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	// Required first, then alphabetical: the order a model fills them in.
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	b.WriteString("{\n")
	for _, n := range names {
		p := parseSchema(s.Properties[n])
		opt := "?"
		if required[n] {
			opt = ""
		}
		fmt.Fprintf(&b, "%s  %s%s: %s;", indent, n, opt, tsType(p, indent+"  "))
		if c := comment(p); c != "" {
			b.WriteString(" // " + c)
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
	return b.String()
}

func tsType(s *schema, indent string) string {
	if s == nil {
		return "unknown"
	}
	if len(s.Enum) > 0 {
		parts := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			j, _ := json.Marshal(v)
			parts[i] = string(j)
		}
		return strings.Join(parts, " | ")
	}
	var types []string
	switch t := s.Type.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				types = append(types, str)
			}
		}
	}
	var out []string
	for _, t := range types {
		switch t {
		case "string", "boolean", "null":
			out = append(out, t)
		case "integer", "number":
			out = append(out, "number")
		case "array":
			item := tsType(parseSchema(s.Items), indent)
			if strings.Contains(item, " | ") {
				item = "(" + item + ")"
			}
			out = append(out, item+"[]")
		case "object":
			if len(s.Properties) > 0 {
				out = append(out, tsObject(s, indent))
			} else {
				out = append(out, "object")
			}
		}
	}
	if len(out) == 0 {
		return "unknown"
	}
	return strings.Join(out, " | ")
}

// comment is a property's description, with what its type alone does not
// say (an integer, its bounds) in front.
func comment(s *schema) string {
	if s == nil {
		return ""
	}
	var parts []string
	if s.Type == "integer" {
		what := "integer"
		switch {
		case s.Minimum != nil && s.Maximum != nil:
			what += fmt.Sprintf(" %g..%g", *s.Minimum, *s.Maximum)
		case s.Minimum != nil:
			what += fmt.Sprintf(" >= %g", *s.Minimum)
		}
		parts = append(parts, what+".")
	}
	if d := strings.Join(strings.Fields(s.Description), " "); d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, " ")
}
