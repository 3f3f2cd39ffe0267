package memory

import (
	"fmt"
	"strings"
	"time"
)

// DefaultMaxBytes is the size cap of one stored memory, frontmatter
// included, when the settings name none.
const DefaultMaxBytes = 16 << 10

// The bounds a memoryMaxBytes setting must keep: room for a frontmatter
// and a few lines, and no more than a model can take in with one read.
const (
	MinMaxBytes = 1 << 10
	MaxMaxBytes = 1 << 20
)

// MaxPages bounds the outside sources a memory lists.
const MaxPages = 20

// Update is what a write asks for. The text replaces the memory's text;
// each frontmatter field merges on its own over what is on disk: nil keeps
// it, an empty value removes it, anything else replaces it.
type Update struct {
	Text        string
	Description *string
	Type        *Type
	Keywords    *[]string
	Related     *[]string
}

// Stamp is what Tether itself writes into the frontmatter.
type Stamp struct {
	Now time.Time
	// Request is the request (chat turn) that writes.
	Request string
	// Untrusted lists what the request read from outside; any makes the
	// source SourceWeb.
	Untrusted []string
}

// FromText takes a frontmatter the writer put at the top of the text: its
// fields fill in those the update leaves unset, and the text becomes what
// follows it. Fields Tether stamps itself (and a name) are ignored and
// listed in ignored; any other unknown field is an error.
func (u *Update) FromText() (ignored []string, err error) {
	trimmed := strings.TrimLeft(u.Text, " \t\r\n")
	if !strings.HasPrefix(trimmed, "---") {
		return nil, nil
	}
	fm, _, _, _, perr := split([]byte(trimmed))
	if perr != nil || fm == nil {
		if perr != nil {
			return nil, fmt.Errorf("the frontmatter at the top of text: %v", perr.Msg)
		}
		return nil, nil
	}
	p, err := Parse([]byte(trimmed))
	if err != nil {
		return nil, fmt.Errorf("the frontmatter at the top of text: %v", err)
	}
	for i := 0; i+1 < len(p.Meta.extra); i += 2 {
		k := p.Meta.extra[i].Value
		if k != "name" {
			return nil, fmt.Errorf("the frontmatter at the top of text has the field %q, which memories do not have (they have description, type, keywords and related)", k)
		}
		ignored = append(ignored, k)
	}
	m := p.Meta
	if !m.Created.IsZero() {
		ignored = append(ignored, fieldCreated)
	}
	if !m.Updated.IsZero() {
		ignored = append(ignored, fieldUpdated)
	}
	if m.Source != "" {
		ignored = append(ignored, fieldSource)
	}
	if len(m.Pages) > 0 {
		ignored = append(ignored, fieldPages)
	}
	if u.Description == nil && m.Description != "" {
		u.Description = &m.Description
	}
	if u.Type == nil && m.Type != "" {
		u.Type = &m.Type
	}
	if u.Keywords == nil && len(m.Keywords) > 0 {
		u.Keywords = &m.Keywords
	}
	if u.Related == nil && len(m.Related) > 0 {
		u.Related = &m.Related
	}
	u.Text = p.Body
	return ignored, nil
}

// Merge makes the page that writing u over cur stores; cur is nil for a
// new memory, and curMod is its file's modification time (the creation
// time of a hand-made page that has none). The stamps are Tether's: created
// is kept from the page (or set now), updated is now, and the source is
// the request, or SourceWeb when the request read content from outside or
// the page already came from there.
func Merge(name string, cur *Page, curMod time.Time, u Update, s Stamp) (Page, error) {
	var p Page
	if cur != nil {
		p.Meta = cur.Meta
		p.Meta.Keywords = append([]string(nil), cur.Meta.Keywords...)
		p.Meta.Related = append([]string(nil), cur.Meta.Related...)
		p.Meta.Pages = append([]string(nil), cur.Meta.Pages...)
	}
	p.Body = strings.TrimRight(u.Text, " \t\r\n")
	if strings.TrimSpace(p.Body) == "" {
		return p, fmt.Errorf("the text is empty")
	}
	if u.Description != nil {
		p.Meta.Description = strings.Join(strings.Fields(*u.Description), " ")
	}
	if u.Type != nil {
		t := Type(strings.TrimSpace(string(*u.Type)))
		if t != "" && !t.Known() {
			return p, fmt.Errorf("type %q is not one of %s", t, typeNames())
		}
		p.Meta.Type = t
	}
	if u.Keywords != nil {
		p.Meta.Keywords = SplitList(strings.Join(*u.Keywords, ","))
	}
	if u.Related != nil {
		var related []string
		for _, r := range SplitList(strings.Join(*u.Related, ",")) {
			r, err := CheckName(r)
			if err != nil {
				return p, fmt.Errorf("related: %w", err)
			}
			if r != name {
				related = append(related, r)
			}
		}
		p.Meta.Related = related
	}

	now := s.Now.UTC().Truncate(time.Second)
	switch {
	case cur == nil:
		p.Meta.Created = now
	case p.Meta.Created.IsZero():
		p.Meta.Created = curMod.UTC().Truncate(time.Second)
	}
	p.Meta.Updated = now
	switch {
	case len(s.Untrusted) > 0:
		p.Meta.Source = SourceWeb
		p.Meta.Pages = unique(append(p.Meta.Pages, s.Untrusted...))
	case p.Meta.Source == SourceWeb:
		// What was read stays in the text until a person says otherwise.
	default:
		p.Meta.Source = "request " + s.Request
	}
	if len(p.Meta.Pages) > MaxPages {
		p.Meta.Pages = p.Meta.Pages[len(p.Meta.Pages)-MaxPages:]
	}
	return p, nil
}

// unique drops empty items and repeats, keeping the first of each.
func unique(items []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" && !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out
}

func typeNames() string {
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// SizeError is a page over the size cap.
type SizeError struct {
	Size, Max int
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("the memory would be %d bytes with its frontmatter, over the limit of %d", e.Size, e.Max)
}

// CheckSize refuses a page larger than max bytes (max <= 0: DefaultMaxBytes).
func CheckSize(page []byte, max int) error {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if len(page) > max {
		return &SizeError{Size: len(page), Max: max}
	}
	return nil
}
