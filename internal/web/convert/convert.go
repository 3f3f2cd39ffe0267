// Package convert turns a fetched body into text a model can read: it
// tells HTML from other text and from binary data by the content type,
// decodes any charset to UTF-8, and makes Markdown of an HTML page's main
// content (readability first, the whole page when that keeps almost
// nothing). Conversion input is capped and a conversion can be cancelled.
package convert

import (
	"bytes"
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// Kind is what a body is, for a reader.
type Kind int

const (
	Binary Kind = iota // images, PDF, archives: not text
	Text               // plain text, JSON, XML, source code: shown as it is
	HTML               // a web page: converted to Markdown
)

func (k Kind) String() string { return [...]string{"binary", "text", "HTML"}[k] }

// textTypes are the application/ types that are text.
var textTypes = map[string]bool{
	"application/json":                  true,
	"application/xml":                   true,
	"application/javascript":            true,
	"application/ecmascript":            true,
	"application/x-javascript":          true,
	"application/yaml":                  true,
	"application/x-yaml":                true,
	"application/toml":                  true,
	"application/x-sh":                  true,
	"application/sql":                   true,
	"application/graphql":               true,
	"application/x-ndjson":              true,
	"application/x-www-form-urlencoded": true,
}

// Classify says what a body is from its Content-Type header; a missing
// header is sniffed from the body. The media type returned is lowercase,
// without parameters, for messages ("image/png").
func Classify(contentType string, body []byte) (Kind, string) {
	media := mediaType(contentType)
	if media == "" {
		media = mediaType(http.DetectContentType(body))
	}
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		return HTML, media
	case strings.HasPrefix(media, "text/"),
		textTypes[media],
		strings.HasSuffix(media, "+json"),
		strings.HasSuffix(media, "+xml"):
		return Text, media
	}
	return Binary, media
}

func mediaType(contentType string) string {
	if strings.TrimSpace(contentType) == "" {
		return ""
	}
	m, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		// A malformed header still names its type before the first ';'.
		m, _, _ = strings.Cut(contentType, ";")
	}
	return strings.ToLower(strings.TrimSpace(m))
}

// Decode returns body as UTF-8 text. The charset comes from a byte-order
// mark, then the Content-Type header, then (for HTML) a <meta> in the
// first bytes; a body that declares none and is valid UTF-8 is taken as
// UTF-8, anything else as windows-1252, as browsers do.
func Decode(body []byte, contentType string) string {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	var text string
	switch {
	case !certain && utf8.Valid(body):
		// DetermineEncoding looks at the first 1024 bytes only: an ASCII
		// start followed by UTF-8 would otherwise be read as windows-1252.
		text = string(body)
	case enc == encoding.Nop || name == "utf-8":
		text = strings.ToValidUTF8(string(body), "\uFFFD")
	default:
		out, _, err := transform.Bytes(enc.NewDecoder(), body)
		if err != nil {
			out = []byte(strings.ToValidUTF8(string(body), "\uFFFD"))
		}
		text = string(out)
	}
	return strings.TrimPrefix(text, "\uFEFF")
}

// MaxInput is the most HTML a conversion reads. Both converters take about
// a second per megabyte and a half of HTML; past this, the rest of the
// page is dropped and the result says so.
const MaxInput = 2 << 20

// minKeep is the share of the page's text readability must keep for its
// result to be used; below it (a listing, a page of links, content hidden
// in markup readability discards), the whole page is converted instead.
const minKeep = 0.05

// Document is a converted HTML page.
type Document struct {
	Title    string
	Markdown string
	// Cut is set when the page was longer than MaxInput and only its start
	// was converted.
	Cut bool
	// Whole is set when the whole page was converted because readability
	// kept too little of it.
	Whole bool
}

// ErrCancelled wraps the context's error when a conversion is abandoned.
var ErrCancelled = errors.New("conversion cancelled")

// Markdown converts an HTML page to Markdown: its main content, with links
// made absolute against pageURL. It returns as soon as ctx is done; the
// work already started stops at its next step.
func Markdown(ctx context.Context, src string, pageURL *url.URL) (Document, error) {
	type outcome struct {
		doc Document
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		doc, err := markdown(ctx, src, pageURL)
		done <- outcome{doc, err}
	}()
	select {
	case o := <-done:
		return o.doc, o.err
	case <-ctx.Done():
		return Document{}, errors.Join(ErrCancelled, ctx.Err())
	}
}

func markdown(ctx context.Context, src string, pageURL *url.URL) (Document, error) {
	var out Document
	if len(src) > MaxInput {
		src, out.Cut = cutHTML(src, MaxInput), true
	}
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return out, err
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	pageText := textLength(doc)
	title := pageTitle(doc)

	parser := readability.NewParser()
	article, err := parser.ParseAndMutate(doc, pageURL)
	if err := ctx.Err(); err != nil {
		return out, err
	}
	node := article.Node
	if err != nil || node == nil || float64(textLength(node)) < minKeep*float64(pageText) {
		// Readability changed the tree; parse the page again for the whole of it.
		if node, err = html.Parse(strings.NewReader(src)); err != nil {
			return out, err
		}
		out.Whole = true
	} else if t := strings.TrimSpace(article.Title()); t != "" {
		title = t
	}
	out.Title = title
	md, err := newConverter().ConvertNode(node, converter.WithContext(ctx), converter.WithDomain(domain(pageURL)))
	if err != nil {
		return out, err
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	out.Markdown = strings.TrimSpace(string(md))
	return out, nil
}

// newConverter builds the Markdown converter: CommonMark with tables and
// strikethrough, and a first renderer that, once the context is done,
// claims every node without writing it, so a cancelled conversion ends
// after the node it was on.
//
// Escaping is off: the reader is a model, which reads "a * b" as the page
// meant it, and text quoted from the result then matches the page
// (`__init__`, not `\_\_init\_\_`). It also halves the conversion time.
func newConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	), converter.WithEscapeMode(converter.EscapeModeDisabled))
	conv.Register.Renderer(func(ctx converter.Context, _ converter.Writer, _ *html.Node) converter.RenderStatus {
		if ctx.Err() != nil {
			return converter.RenderSuccess
		}
		return converter.RenderTryNext
	}, 0)
	return conv
}

func domain(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// cutHTML keeps the first max bytes of src, backing off to the start of
// the tag that straddles the cut, and to a whole UTF-8 character.
func cutHTML(src string, limit int) string {
	s := src[:limit]
	if i := strings.LastIndexByte(s, '<'); i > limit-64<<10 && i > strings.LastIndexByte(s, '>') {
		s = s[:i]
	}
	if len(s) > 0 {
		if i := lastRuneStart(s); !utf8.FullRuneInString(s[i:]) {
			s = s[:i]
		}
	}
	return s
}

// lastRuneStart is the index of the start of s's last character.
func lastRuneStart(s string) int {
	i := len(s) - 1
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// textLength counts the bytes of visible text under n, skipping scripts,
// styles and templates.
func textLength(n *html.Node) int {
	total := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			total += len(bytes.TrimSpace([]byte(n.Data)))
			return
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Template || n.DataAtom == atom.Noscript):
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return total
}

// pageTitle is the text of the document's first <title>.
func pageTitle(doc *html.Node) string {
	var find func(*html.Node) string
	find = func(n *html.Node) string {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			return strings.Join(strings.Fields(b.String()), " ")
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			return ""
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if t := find(c); t != "" {
				return t
			}
		}
		return ""
	}
	return find(doc)
}
