// Package ddg searches the web through DuckDuckGo's HTML endpoint, which
// needs no API key: it builds the request (a POST with q) and reads the
// result page into titles, URLs and snippets, with ads dropped and
// DuckDuckGo's redirect links decoded. A rate-limit (CAPTCHA) page and a
// page the parser does not recognise are errors, never "no results".
package ddg

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Endpoint is DuckDuckGo's HTML search endpoint.
const Endpoint = "https://html.duckduckgo.com/html/"

// Result is one search hit.
type Result struct {
	Title   string
	URL     string
	Snippet string
}

var (
	// ErrRateLimited is DuckDuckGo's anomaly (CAPTCHA) page, which it serves
	// after a burst of searches from one address.
	ErrRateLimited = errors.New("the search engine answered with its rate-limit (CAPTCHA) page")
	// ErrUnreadable is a page with no result the parser recognises and no
	// sign that the search found nothing: the markup has likely changed.
	ErrUnreadable = errors.New("the result page could not be read")
)

// NewRequest builds the search request for query.
func NewRequest(ctx context.Context, endpoint, query string) (*http.Request, error) {
	form := url.Values{"q": {query}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	return req, nil
}

// Parse reads a result page served with HTTP status code status. A page
// that says the search found nothing gives no results and no error.
func Parse(status int, body []byte) ([]Result, error) {
	if status == http.StatusAccepted || anomaly(body) {
		return nil, ErrRateLimited
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, ErrUnreadable
	}
	var p parser
	p.walk(doc)
	if len(p.results) == 0 && len(p.lite) > 0 {
		p.results = p.lite
	}
	if len(p.results) == 0 && !p.noResults {
		return nil, ErrUnreadable
	}
	return p.results, nil
}

// anomaly reports the marks of the rate-limit page.
func anomaly(body []byte) bool {
	return bytes.Contains(body, []byte("anomaly-modal")) || bytes.Contains(body, []byte("/anomaly.js"))
}

type parser struct {
	results   []Result
	lite      []Result // from the lite endpoint's markup
	noResults bool
}

func (p *parser) walk(n *html.Node) {
	if n.Type == html.ElementNode {
		cls := classes(n)
		switch {
		case cls["no-results"] || cls["result--no-result"]:
			p.noResults = true
			return
		case cls["result"] && (n.DataAtom == atom.Div || n.DataAtom == atom.Article || n.DataAtom == atom.Li):
			if r, ok := resultBlock(n, cls); ok {
				p.results = append(p.results, r)
			}
			return
		case n.DataAtom == atom.A && cls["result-link"]:
			if u, ok := target(attr(n, "href")); ok && text(n) != "" {
				p.lite = append(p.lite, Result{Title: text(n), URL: u})
			}
			return
		case n.DataAtom == atom.Td && cls["result-snippet"]:
			if len(p.lite) > 0 && p.lite[len(p.lite)-1].Snippet == "" {
				p.lite[len(p.lite)-1].Snippet = text(n)
			}
			return
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		p.walk(c)
	}
}

// resultBlock reads one .result block: its .result__a link and its
// .result__snippet. Ads (.result--ad, or links through y.js) are dropped.
func resultBlock(n *html.Node, cls map[string]bool) (Result, bool) {
	if cls["result--ad"] {
		return Result{}, false
	}
	link := find(n, func(m *html.Node) bool { return m.DataAtom == atom.A && classes(m)["result__a"] })
	if link == nil {
		return Result{}, false
	}
	href := attr(link, "href")
	if isAd(href) {
		return Result{}, false
	}
	u, ok := target(href)
	if !ok {
		return Result{}, false
	}
	r := Result{Title: text(link), URL: u}
	if s := find(n, func(m *html.Node) bool { return classes(m)["result__snippet"] }); s != nil {
		r.Snippet = text(s)
	}
	return r, r.Title != ""
}

func isAd(href string) bool {
	u, err := url.Parse(href)
	return err == nil && strings.HasSuffix(u.Hostname(), "duckduckgo.com") && u.Path == "/y.js"
}

// target decodes a result link: DuckDuckGo's /l/?uddg= redirect becomes
// the URL it points to. Only absolute http(s) URLs are results.
// The URL is returned as the page gave it (an internationalised host stays
// readable).
func target(href string) (string, bool) {
	s := strings.TrimSpace(href)
	u, err := url.Parse(s)
	if err != nil {
		return "", false
	}
	if strings.HasSuffix(u.Hostname(), "duckduckgo.com") && u.Path == "/l/" {
		if inner := u.Query().Get("uddg"); inner != "" {
			if u, err = url.Parse(inner); err != nil {
				return "", false
			}
			s = inner
		}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return s, true
}

func classes(n *html.Node) map[string]bool {
	c := attr(n, "class")
	if c == "" {
		return nil
	}
	m := map[string]bool{}
	for _, f := range strings.Fields(c) {
		m[f] = true
	}
	return m
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// find returns the first element under n (n excluded) that ok accepts.
func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && ok(c) {
			return c
		}
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

// text is the text under n with white space collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
