package convert

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tether-dev/tether/internal/web/webtest"
)

func TestClassify(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	tests := []struct {
		ct    string
		body  []byte
		kind  Kind
		media string
	}{
		{"text/html; charset=utf-8", nil, HTML, "text/html"},
		{"TEXT/HTML", nil, HTML, "text/html"},
		{"application/xhtml+xml", nil, HTML, "application/xhtml+xml"},
		{"text/plain", nil, Text, "text/plain"},
		{"text/markdown; charset=utf-8", nil, Text, "text/markdown"},
		{"text/css", nil, Text, "text/css"},
		{"application/json", nil, Text, "application/json"},
		{"application/ld+json", nil, Text, "application/ld+json"},
		{"application/rss+xml", nil, Text, "application/rss+xml"},
		{"application/xml", nil, Text, "application/xml"},
		{"application/javascript", nil, Text, "application/javascript"},
		{"application/x-yaml", nil, Text, "application/x-yaml"},
		{"image/png", png, Binary, "image/png"},
		{"application/pdf", []byte("%PDF-1.7"), Binary, "application/pdf"},
		{"application/octet-stream", []byte("text"), Binary, "application/octet-stream"},
		{"application/zip", nil, Binary, "application/zip"},
		{"video/mp4", nil, Binary, "video/mp4"},
		{"text/html; charset", nil, HTML, "text/html"}, // malformed parameters
		{"", []byte("<!DOCTYPE html><html><body>x</body></html>"), HTML, "text/html"},
		{"", []byte("just some words"), Text, "text/plain"},
		{"", png, Binary, "image/png"},
	}
	for _, tt := range tests {
		kind, media := Classify(tt.ct, tt.body)
		if kind != tt.kind || media != tt.media {
			t.Errorf("Classify(%q) = %v %q, want %v %q", tt.ct, kind, media, tt.kind, tt.media)
		}
	}
}

// A body labelled text whose bytes are binary (NUL bytes, or mostly
// control bytes) is binary; text in UTF-16, whose NULs are half its
// characters, is not.
func TestLooksBinary(t *testing.T) {
	for _, tt := range []struct {
		ct   string
		body string
		want bool
	}{
		{"text/plain", "plain words\n", false},
		{"text/plain", "abc\x00def", true},
		{"text/html", "<html>" + strings.Repeat("x", 9000) + "\x00", false}, // past the sniffed start
		{"text/plain", "\x01\x02\x03\x04\x05\x06\x07\x08 a few words", true},
		{"text/plain", "tabs\tand\r\nlines\x0c and one \x1b[31m escape", false},
		{"text/plain; charset=utf-16", "h\x00i\x00", false},
		{"text/plain", "\xff\xfeh\x00i\x00", false},
		{"application/json", "{\"a\": \"\x00\"}", true},
	} {
		if got := LooksBinary([]byte(tt.body), tt.ct); got != tt.want {
			t.Errorf("LooksBinary(%q, %q) = %v, want %v", tt.body, tt.ct, got, tt.want)
		}
	}
}

// What a page may carry into a result is shown, never passed on: control
// characters and terminal escapes as \x escapes, bidirectional overrides
// and isolates as \u escapes. Ordinary text, tabs and line breaks stay.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\twith a tab":               "plain text\n\twith a tab",
		"crlf\r\nlines\r\n":                      "crlf\nlines\n",
		"a lone\rreturn":                         `a lone\rreturn`,
		"\x1b[2J\x1b]0;title\x07red":             `\x1b[2J\x1b]0;title\x07red`,
		"nul\x00del\x7f":                         `nul\x00del\x7f`,
		"c1 \u009b31m":                           `c1 \u009b31m`,
		"access = \u202e\u2066admin\u2069\u202c": `access = \u202e\u2066admin\u2069\u202c`,
		"\u202a\u202b\u202d\u2067\u2068":         `\u202a\u202b\u202d\u2067\u2068`,
		"café – ok ✓ 😀":                          "café – ok ✓ 😀",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecode(t *testing.T) {
	asciiStart := strings.Repeat("a", 2000) + "é"
	tests := []struct {
		name string
		body []byte
		ct   string
		want string
	}{
		{"utf-8 declared", []byte("café"), "text/plain; charset=utf-8", "café"},
		{"latin-1 header", []byte("caf\xe9"), "text/plain; charset=ISO-8859-1", "café"},
		{"meta charset", []byte(`<html><head><meta charset="shift_jis"></head><body>` + "\x93\xfa\x96\x7b" + `</body></html>`), "text/html", `<html><head><meta charset="shift_jis"></head><body>日本</body></html>`},
		{"undeclared utf-8 after a long ASCII start", []byte(asciiStart), "text/plain", asciiStart},
		{"undeclared windows-1252", []byte("caf\xe9 \x93quoted\x94"), "text/plain", "café “quoted”"},
		{"utf-16 with BOM", []byte("\xff\xfeh\x00i\x00"), "text/plain", "hi"},
		{"utf-8 BOM", []byte("\xef\xbb\xbfhi"), "", "hi"},
	}
	for _, tt := range tests {
		if got := Decode(tt.body, tt.ct); got != tt.want {
			t.Errorf("%s: Decode = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("caf\xe9"), "text/plain")
	f.Add([]byte("\xff\xfeh\x00"), "")
	f.Add([]byte(`<meta charset="koi8-r">`), "text/html")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		if s := Decode(body, ct); !utf8.ValidString(s) {
			t.Fatalf("Decode(%q, %q) = %q is not UTF-8", body, ct, s)
		}
		Classify(ct, body)
	})
}

func pageURL() *url.URL {
	u, _ := url.Parse("https://docs.example/guide/cache")
	return u
}

func TestMarkdownKeepsTheArticle(t *testing.T) {
	doc, err := Markdown(context.Background(), webtest.Article(30<<10), pageURL())
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "How the cache works" || doc.Whole || doc.Cut {
		t.Errorf("title %q, whole %v, cut %v", doc.Title, doc.Whole, doc.Cut)
	}
	for _, want := range []string{
		"## Section 1:",
		"[", "](https://docs.example/docs/page-10)", // links made absolute
		"```\nfunc get(key string)",
		"| Size ",
		"> ",
		"- ",
		"`cache.Get`",
	} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	for _, clutter := range []string{"Section 39", "A related page", "Privacy", "dataLayer", "font-family"} {
		if strings.Contains(doc.Markdown, clutter) {
			t.Errorf("the Markdown keeps the page's clutter %q", clutter)
		}
	}
}

// A page whose text readability discards (here, server-rendered content
// hidden until a script shows it) keeps almost nothing through it; the
// whole page is converted instead.
func TestMarkdownFallsBackToTheWholePage(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>Notes</title></head><body><article><p>Short.</p></article>")
	for i := 0; i < 40; i++ {
		b.WriteString(`<div style="display:none">` + strings.Repeat("The real text of the page, said at length. ", 10) + `<a href="/n/` + string(rune('a'+i%26)) + `">more</a></div>`)
	}
	b.WriteString("</body></html>")
	doc, err := Markdown(context.Background(), b.String(), pageURL())
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Whole || doc.Title != "Notes" || strings.Count(doc.Markdown, "The real text of the page") != 400 || !strings.Contains(doc.Markdown, "](https://docs.example/n/a)") {
		t.Errorf("whole %v, title %q, markdown %.300q", doc.Whole, doc.Title, doc.Markdown)
	}
}

func TestMarkdownCapsItsInput(t *testing.T) {
	page := webtest.Article(MaxInput + 200<<10)
	doc, err := Markdown(context.Background(), page, pageURL())
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Cut || doc.Markdown == "" {
		t.Fatalf("cut %v, %d bytes of Markdown", doc.Cut, len(doc.Markdown))
	}
}

func TestCutHTML(t *testing.T) {
	s := "<p>ab</p><p>cé"
	if got := cutHTML(s, len(s)-1); got != "<p>ab</p><p>c" {
		t.Errorf("a cut inside a character: %q", got)
	}
	if got := cutHTML("<p>ab</p><a href=x>", 15); got != "<p>ab</p>" {
		t.Errorf("a cut inside a tag: %q", got)
	}
}

func TestMarkdownCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Markdown(ctx, webtest.Article(200<<10), pageURL())
	if !errors.Is(err, ErrCancelled) && !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// A cancelled conversion stops early: the converter's first renderer
	// claims every node once the context is done.
	md, err := newConverter().ConvertString("<p>one</p><p>two</p>")
	if err != nil || !strings.Contains(md, "two") {
		t.Fatalf("live conversion: %q, %v", md, err)
	}
	gone, _ := newConverter().ConvertString("<p>one</p><p>two</p>", withCancelled())
	if gone != "" {
		t.Fatalf("a cancelled conversion wrote %q", gone)
	}
}
