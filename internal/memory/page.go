package memory

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Type says what a memory is about.
type Type string

const (
	TypeUser       Type = "user"       // the user: their role, preferences, how they like to work
	TypeProject    Type = "project"    // the project: decisions, context, conventions
	TypeProcedural Type = "procedural" // how to do something here: build, release, debug
	TypeReference  Type = "reference"  // where things are: documents, dashboards, people
)

// Types lists the memory types in the order they are documented.
var Types = []Type{TypeUser, TypeProject, TypeProcedural, TypeReference}

// Known reports whether t is one of Types.
func (t Type) Known() bool {
	for _, x := range Types {
		if t == x {
			return true
		}
	}
	return false
}

// SourceWeb is the source of a memory written by a request that had read
// content from outside (a web page, search results, a command that reached
// the network). It stays once set: later text may still carry what was read.
const SourceWeb = "web"

// Frontmatter field names, in the order they are written.
const (
	fieldDescription = "description"
	fieldType        = "type"
	fieldKeywords    = "keywords"
	fieldRelated     = "related"
	fieldCreated     = "created"
	fieldUpdated     = "updated"
	fieldSource      = "source"
	fieldPages       = "pages"
)

// Stamps are the fields Tether writes itself; a value the model sends for
// one is ignored.
var Stamps = []string{fieldCreated, fieldUpdated, fieldSource, fieldPages}

// Meta is a memory's frontmatter.
type Meta struct {
	Description string
	Type        Type
	// Keywords are aliases a search should find the memory by (other
	// words, other languages).
	Keywords []string
	// Related names memories worth reading alongside this one.
	Related []string
	Created time.Time
	Updated time.Time
	// Source says where the content came from: "request <id>", or
	// SourceWeb.
	Source string
	// Pages are the outside sources read by the requests that wrote it
	// under SourceWeb.
	Pages []string

	// extra holds the fields Tether does not know (a person added them),
	// as key and value nodes, written back unchanged after the known ones.
	extra []*yaml.Node
}

// Page is a memory file: its frontmatter and its text.
type Page struct {
	Meta Meta
	// Body is the text below the frontmatter.
	Body string
	// BodyLine is the 1-based line of the file on which Body starts.
	BodyLine int
}

// ParseError is a frontmatter that cannot be read, with the 1-based line
// of the file where the problem is (0 when unknown).
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

const bom = "\xef\xbb\xbf"

// split finds the frontmatter: a first line "---", then YAML, then a line
// "---" (or "..."). It returns the YAML, the file line the YAML starts on,
// and the text after it. Without an opening line the whole file is text.
func split(data []byte) (fm []byte, fmLine int, body []byte, bodyLine int, err *ParseError) {
	data = bytes.TrimPrefix(data, []byte(bom))
	first, rest, found := bytes.Cut(data, []byte("\n"))
	if !found || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, 0, data, 1, nil
	}
	line := 2
	for off := 0; off < len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		next := len(rest)
		if end >= 0 {
			next = off + end + 1
		}
		switch string(bytes.TrimRight(rest[off:next], " \t\r\n")) {
		case "---", "...":
			body, bodyLine = rest[next:], line+1
			// One blank line separates the frontmatter from the text.
			if b, ok := bytes.CutPrefix(body, []byte("\n")); ok {
				body, bodyLine = b, bodyLine+1
			} else if b, ok := bytes.CutPrefix(body, []byte("\r\n")); ok {
				body, bodyLine = b, bodyLine+1
			}
			return rest[:off], 2, body, bodyLine, nil
		}
		off, line = next, line+1
	}
	return nil, 0, nil, 0, &ParseError{Line: 1, Msg: "the frontmatter that starts here is never closed: add a line with only --- after its last field"}
}

// yamlLine finds the line number in a YAML error message.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// parserProblems are the YAML parser's messages, whose line numbers count
// from 0; the scanner's (every other message) count from 1.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// Parse reads a memory file. A file without a frontmatter is all text; a
// frontmatter that is not valid YAML, not a mapping, or holds a field of
// the wrong kind is a *ParseError naming the line.
func Parse(data []byte) (Page, error) {
	fm, fmLine, body, bodyLine, perr := split(data)
	if perr != nil {
		return Page{}, perr
	}
	p := Page{Body: string(body), BodyLine: bodyLine}
	if fm == nil {
		return p, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 1 // the YAML library leaves out a first line
		if m := yamlLine().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
			if parserProblems[msg] {
				line++ // the parser counts lines from 0, the scanner from 1
			}
		}
		return Page{}, &ParseError{Line: line + fmLine - 1, Msg: "the frontmatter is not valid YAML: " + msg}
	}
	meta, err := readMeta(&doc, fmLine)
	if err != nil {
		return Page{}, err
	}
	p.Meta = meta
	return p, nil
}

// readMeta reads the fields of a parsed frontmatter.
func readMeta(doc *yaml.Node, fmLine int) (Meta, error) {
	var m Meta
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return m, nil // an empty frontmatter
	}
	root := doc.Content[0]
	at := func(n *yaml.Node) int { return n.Line + fmLine - 1 }
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return m, nil // only comments
	}
	if root.Kind != yaml.MappingNode {
		return m, &ParseError{Line: at(root), Msg: "the frontmatter must be a list of `field: value` lines"}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return m, &ParseError{Line: at(k), Msg: fmt.Sprintf("the field %q appears twice", k.Value)}
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case fieldDescription:
			m.Description, err = text(v)
		case fieldType:
			var s string
			s, err = text(v)
			m.Type = Type(s)
		case fieldKeywords:
			m.Keywords, err = list(v, true)
		case fieldRelated:
			m.Related, err = list(v, true)
		case fieldPages:
			m.Pages, err = list(v, false)
		case fieldSource:
			m.Source, err = text(v)
		case fieldCreated:
			m.Created, err = date(v)
		case fieldUpdated:
			m.Updated, err = date(v)
		default:
			m.extra = append(m.extra, k, v)
		}
		if err != nil {
			return m, &ParseError{Line: at(v), Msg: fmt.Sprintf("%s: %v", k.Value, err)}
		}
	}
	return m, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// text reads a field that holds one value.
func text(n *yaml.Node) (string, error) {
	switch {
	case isNull(n):
		return "", nil
	case n.Kind == yaml.ScalarNode:
		return n.Value, nil
	}
	return "", fmt.Errorf("it must be a single value, not a list or a mapping")
}

// list reads a field that holds a list: a YAML sequence, or one value,
// which commas split (as a person may write keywords) when comma is set.
func list(n *yaml.Node, comma bool) ([]string, error) {
	switch {
	case isNull(n):
		return nil, nil
	case n.Kind == yaml.ScalarNode && comma:
		return SplitList(n.Value), nil
	case n.Kind == yaml.ScalarNode:
		return unique([]string{n.Value}), nil
	case n.Kind == yaml.SequenceNode:
		var out []string
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("each item must be a single value")
			}
			if s := strings.TrimSpace(item.Value); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("it must be a list, like [a, b]")
}

// dateLayouts are the forms a date field is read in; Tether writes the first.
var dateLayouts = []string{time.RFC3339, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"}

func date(n *yaml.Node) (time.Time, error) {
	s, err := text(n)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date and time like 2026-12-01T10:00:00Z", s)
}

// SplitList splits a comma-separated list, trimming each item and dropping
// empty ones and repeats (compared without case).
func SplitList(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if key := strings.ToLower(item); item != "" && !seen[key] {
			seen[key] = true
			out = append(out, item)
		}
	}
	return out
}

// Render writes a page: the frontmatter (known fields in a fixed order,
// empty ones left out, then the fields a person added), a blank line, and
// the text ending in one line break.
func Render(p Page) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if n := p.Meta.node(); len(n.Content) > 0 {
		// Encoding nodes built here cannot fail.
		_ = enc.Encode(n)
	}
	_ = enc.Close()
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimRight(p.Body, " \t\r\n"))
	b.WriteString("\n")
	return b.Bytes()
}

func (m Meta) node() *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	str := func(k, v string) {
		if v != "" {
			n.Content = append(n.Content, scalar(k), scalar(v))
		}
	}
	seq := func(k string, vs []string) {
		if len(vs) == 0 {
			return
		}
		s := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, v := range vs {
			s.Content = append(s.Content, scalar(v))
		}
		n.Content = append(n.Content, scalar(k), s)
	}
	when := func(k string, t time.Time) {
		if !t.IsZero() {
			v := &yaml.Node{Kind: yaml.ScalarNode, Value: t.UTC().Format(time.RFC3339)}
			n.Content = append(n.Content, scalar(k), v)
		}
	}
	str(fieldDescription, m.Description)
	str(fieldType, string(m.Type))
	seq(fieldKeywords, m.Keywords)
	seq(fieldRelated, m.Related)
	when(fieldCreated, m.Created)
	when(fieldUpdated, m.Updated)
	str(fieldSource, m.Source)
	seq(fieldPages, m.Pages)
	n.Content = append(n.Content, m.extra...)
	return n
}

func scalar(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	// A value YAML would read as something other than text (true, 12,
	// null, a date) is quoted, so it reads back as the same text.
	var probe any
	if err := yaml.Unmarshal([]byte(v), &probe); err == nil {
		if s, ok := probe.(string); !ok || s != v {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
	return n
}
