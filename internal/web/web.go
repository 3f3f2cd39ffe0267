// Package web is what the web tools (web_fetch, web_search) are built on:
// the checked settings (Config), and a Client that fetches pages and runs
// searches under them, keeping what it got in memory for a while so that
// paging through a page, or asking again, does not fetch it again.
//
// The work is done by one package each: hostrule judges hosts, fetch is
// the guarded client, convert makes Markdown, cache holds pages, ddg and
// brave read search results. Permissions and the words the model reads
// are the tools' business.
package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tether-dev/tether/internal/web/brave"
	"github.com/tether-dev/tether/internal/web/cache"
	"github.com/tether-dev/tether/internal/web/convert"
	"github.com/tether-dev/tether/internal/web/ddg"
	"github.com/tether-dev/tether/internal/web/fetch"
	"github.com/tether-dev/tether/internal/web/hostrule"
)

// The kept pages and searches live this long, and weigh at most this much.
const (
	CacheTTL         = 15 * time.Minute
	PageCacheBytes   = 50 << 20
	SearchCacheBytes = 4 << 20
)

// MaxConvertBytes is the most HTML converted to Markdown.
const MaxConvertBytes = convert.MaxInput

// MaxURLLength is the longest URL fetched.
const MaxURLLength = fetch.MaxURLLength

// DisplayHost is a canonical host as people read it (an internationalised
// name in Unicode), for showing only.
func DisplayHost(host string) string { return hostrule.Display(host) }

// UserAgent is sent with every request.
const UserAgent = "Mozilla/5.0 (compatible; Tether; +https://github.com/tether-dev/tether)"

// accept asks for Markdown where a site offers it, then HTML and text.
const accept = "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.5"

// Types and errors of the fetch client, so the tools need only this package.
type (
	Target       = fetch.Target
	RefusedError = fetch.RefusedError
	BlockedError = fetch.BlockedError
	TooLarge     = fetch.TooLargeError
	TimeoutError = fetch.TimeoutError
)

// ErrTooManyRedirects ends a fetch that kept being redirected.
var ErrTooManyRedirects = fetch.ErrTooManyRedirects

// Errors of a search.
var (
	// ErrRateLimited: the engine refused to answer for now (DuckDuckGo's
	// CAPTCHA page, the Brave API's HTTP 429).
	ErrRateLimited = errors.New("rate-limited")
	// ErrUnreadable: the result page has no result the parser recognises
	// and does not say it found nothing.
	ErrUnreadable = ddg.ErrUnreadable
	// ErrKeyRefused: the Brave API refused the key.
	ErrKeyRefused = brave.ErrKeyRefused
)

// BinaryError is a response that is not text (an image, a PDF), or one
// labelled text whose bytes are binary.
type BinaryError struct {
	URL       string
	MediaType string
	// Mislabelled is set when MediaType says text but the body holds
	// binary data (NUL bytes, or mostly control bytes).
	Mislabelled bool
}

func (e *BinaryError) Error() string {
	if e.Mislabelled {
		return fmt.Sprintf("fetch %s: the content is labelled %s but holds binary data, which is not text", e.URL, e.MediaType)
	}
	return fmt.Sprintf("fetch %s: the content is %s, which is not text", e.URL, e.MediaType)
}

// Client fetches and searches under one Config. It is safe for concurrent
// use; make one per connection and share it between calls.
type Client struct {
	cfg      Config
	http     *fetch.Client
	pages    *cache.LRU[pageKey, *Page]
	searches *cache.LRU[searchKey, []Result]
}

type pageKey struct {
	url string
	raw bool
}

type searchKey struct {
	endpoint, query string
	count           int
}

// New makes a Client.
func New(cfg Config) *Client {
	return &Client{
		cfg: cfg,
		http: fetch.New(fetch.Options{
			Private:   cfg.Private,
			Timeout:   cfg.FetchTimeout(),
			MaxBytes:  cfg.BodyCap(),
			UserAgent: UserAgent,
		}),
		pages:    cache.New[pageKey, *Page](PageCacheBytes, CacheTTL, func(p *Page) int64 { return int64(len(p.Text) + len(p.URL) + 256) }),
		searches: cache.New[searchKey, []Result](SearchCacheBytes, CacheTTL, resultsSize),
	}
}

// Config is the settings in force.
func (c *Client) Config() *Config { return &c.cfg }

// Close drops idle connections.
func (c *Client) Close() { c.http.Close() }

// Check parses and checks a URL; nothing is sent.
func (c *Client) Check(raw string) (Target, error) { return c.http.Check(raw) }

// Allowed reports whether the user lets host be fetched without asking.
func (c *Client) Allowed(host string) bool { return c.cfg.Allowed.Match(host) }

// Page is a fetched page, converted for reading; or a redirect that left
// the site and was not followed.
type Page struct {
	// URL is where the text came from (after same-site redirects).
	URL        string
	StatusCode int
	Status     string // "200 OK"
	// MediaType is the content type without parameters ("text/html").
	MediaType string
	Title     string
	// Text is the Markdown of an HTML page (or, raw, its HTML), or the
	// body of any other text.
	Text string
	// Chars is the length of Text in characters.
	Chars int
	// Converted is set when Text is Markdown made from HTML; Whole when
	// the whole page was converted because readability kept too little;
	// Cut when the HTML was longer than MaxConvertBytes and only its start
	// was converted.
	Converted, Whole, Cut bool
	// Redirect is set when the site redirected elsewhere: the target, not
	// followed. Text is then empty.
	Redirect string
	// FetchedAt is when the page was fetched (a page from the cache is
	// older than the call).
	FetchedAt time.Time
}

// Cached returns the page t would fetch if it is still held.
func (c *Client) Cached(t Target, raw bool) (*Page, bool) {
	return c.pages.Get(pageKey{t.URL.String(), raw})
}

// Fetch fetches t and converts it: HTML to Markdown (raw: the HTML as it
// is), other text as it is; anything else is a *BinaryError. The page is
// kept for CacheTTL.
func (c *Client) Fetch(ctx context.Context, t Target, raw bool) (*Page, error) {
	resp, err := c.http.Get(ctx, t, accept)
	if err != nil {
		return nil, err
	}
	p := &Page{URL: resp.URL.String(), StatusCode: resp.StatusCode, Status: resp.Status, FetchedAt: time.Now()}
	if resp.Redirect != nil {
		p.Redirect = resp.Redirect.String()
		c.pages.Put(pageKey{t.URL.String(), raw}, p)
		return p, nil
	}
	kind, media := convert.Classify(resp.ContentType, resp.Body)
	p.MediaType = media
	if kind == convert.Binary {
		return nil, &BinaryError{URL: p.URL, MediaType: media}
	}
	if convert.LooksBinary(resp.Body, resp.ContentType) {
		return nil, &BinaryError{URL: p.URL, MediaType: media, Mislabelled: true}
	}
	text := convert.Decode(resp.Body, resp.ContentType)
	if kind == convert.HTML && !raw {
		doc, err := convert.Markdown(ctx, text, resp.URL)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("convert %s: %w", p.URL, ctx.Err())
			}
			return nil, fmt.Errorf("convert %s: %w", p.URL, err)
		}
		text, p.Title = doc.Markdown, doc.Title
		p.Converted, p.Whole, p.Cut = true, doc.Whole, doc.Cut
	}
	// Whatever the page holds, what reaches a reader is shown, not acted on.
	text, p.Title = convert.Visible(text), convert.Visible(p.Title)
	p.Text, p.Chars = text, utf8.RuneCountInString(text)
	if p.StatusCode < 400 {
		// An error page (a 503, a 429) is not kept: asking again later
		// should ask the site again.
		c.pages.Put(pageKey{t.URL.String(), raw}, p)
	}
	return p, nil
}

// Window returns the part of p's text from character start, at most
// maxChars characters and maxBytes bytes long, ending at a line break
// where one is near the end. next is the character where the following
// window starts (p.Chars when this one reaches the end).
func (p *Page) Window(start, maxChars, maxBytes int) (part string, next int) {
	if start >= p.Chars {
		return "", p.Chars
	}
	rest := p.Text[byteOffset(p.Text, start):]
	// The longest prefix of rest within both limits, on a character
	// boundary.
	end := min(len(rest), max(maxBytes, 0))
	for end > 0 && end < len(rest) && !utf8.RuneStart(rest[end]) {
		end--
	}
	n := utf8.RuneCountInString(rest[:end])
	if n > maxChars {
		end, n = byteOffset(rest, maxChars), maxChars
	}
	if end < len(rest) {
		// Not the end: break at the last newline in the window's final
		// fifth, so the next window starts on a fresh line.
		if i := strings.LastIndexByte(rest[:end], '\n'); i >= 0 && i+1 > end-end/5 {
			n -= utf8.RuneCountInString(rest[i+1 : end])
			end = i + 1
		}
	}
	if end == 0 {
		// A window too small for one character still moves on.
		_, size := utf8.DecodeRuneInString(rest)
		end, n = size, 1
	}
	return rest[:end], start + n
}

// byteOffset is the byte index in s of its character number chars (len(s)
// past the end).
func byteOffset(s string, chars int) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if utf8.RuneStart(s[i]) {
			if n == chars {
				return i
			}
			n++
		}
	}
	return len(s)
}

// Result is one search hit.
type Result struct {
	Title   string
	URL     string
	Snippet string
}

func resultsSize(rs []Result) int64 {
	n := int64(64)
	for _, r := range rs {
		n += int64(len(r.Title)+len(r.URL)+len(r.Snippet)) + 48
	}
	return n
}

// Search runs a web search for query, returning at most count results.
// Results are kept for CacheTTL. The engine is the Brave Search API when
// an API key is set, otherwise the HTML endpoint (DuckDuckGo's unless the
// settings name another); either is reached through the same guard as a
// fetch.
func (c *Client) Search(ctx context.Context, query string, count int) ([]Result, error) {
	endpoint := c.cfg.searchEndpoint()
	key := searchKey{endpoint, query, count}
	if rs, ok := c.searches.Get(key); ok {
		return rs, nil
	}
	var req *http.Request
	var err error
	if c.cfg.BraveAPIKey != "" {
		req, err = brave.NewRequest(ctx, endpoint, c.cfg.BraveAPIKey, query, count)
	} else {
		req, err = ddg.NewRequest(ctx, endpoint, query)
	}
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", endpoint, err)
	}
	resp, err := c.http.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	var rs []Result
	if c.cfg.BraveAPIKey != "" {
		rs, err = braveResults(resp)
	} else {
		rs, err = htmlResults(resp)
	}
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", endpoint, err)
	}
	if len(rs) > count {
		rs = rs[:count]
	}
	c.searches.Put(key, rs)
	return rs, nil
}

func htmlResults(resp *fetch.Response) ([]Result, error) {
	if resp.StatusCode/100 == 3 {
		return nil, fmt.Errorf("the endpoint redirected (HTTP %d) instead of answering", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		return nil, fmt.Errorf("the endpoint answered HTTP %s", resp.Status)
	}
	hits, err := ddg.Parse(resp.StatusCode, resp.Body)
	if errors.Is(err, ddg.ErrRateLimited) {
		return nil, fmt.Errorf("%w: %w", ErrRateLimited, err)
	}
	if err != nil {
		return nil, err
	}
	return visibleResults(hits), nil
}

// visibleResults makes search results safe to show, as a page's text is.
func visibleResults[H ~struct{ Title, URL, Snippet string }](hits []H) []Result {
	out := make([]Result, len(hits))
	for i, h := range hits {
		r := Result(h)
		r.Title, r.URL, r.Snippet = convert.Visible(r.Title), convert.Visible(r.URL), convert.Visible(r.Snippet)
		out[i] = r
	}
	return out
}

func braveResults(resp *fetch.Response) ([]Result, error) {
	hits, err := brave.Parse(resp.StatusCode, resp.Body)
	if errors.Is(err, brave.ErrRateLimited) {
		return nil, fmt.Errorf("%w: %w", ErrRateLimited, err)
	}
	if err != nil {
		return nil, err
	}
	return visibleResults(hits), nil
}
