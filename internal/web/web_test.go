package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/web/hostrule"
	"github.com/tether-dev/tether/internal/web/webtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNewConfigNamesTheField(t *testing.T) {
	tests := []struct {
		s     Settings
		field string
		entry string
	}{
		{Settings{AllowedHosts: []string{"example.com", "*.co.uk"}}, "webAllowedHosts", "*.co.uk"},
		{Settings{AllowedHosts: []string{"https://example.com/"}}, "webAllowedHosts", "https://example.com/"},
		{Settings{PrivateHosts: []string{"10.0.0.0/40"}}, "webPrivateHosts", "10.0.0.0/40"},
		{Settings{PrivateHosts: []string{"*.com"}}, "webPrivateHosts", "*.com"},
		{Settings{SearchEndpoint: "ftp://mirror.example/"}, "webSearchEndpoint", "ftp://mirror.example/"},
		{Settings{SearchEndpoint: "not a url"}, "webSearchEndpoint", "not a url"},
		{Settings{Timeout: -time.Second}, "webTimeout", "negative"},
		{Settings{MaxBytes: -1}, "webMaxBytes", "-1"},
		{Settings{MaxBytes: MaxMaxBytes + 1}, "webMaxBytes", "out of range"},
	}
	for _, tt := range tests {
		_, err := NewConfig(tt.s)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(err.Error(), tt.entry) {
			t.Errorf("NewConfig(%+v) = %v; want an error on %s naming %q", tt.s, err, tt.field, tt.entry)
		}
	}
	c, err := NewConfig(Settings{AllowedHosts: []string{"*.example.com"}, PrivateHosts: []string{"localhost"}, Timeout: 5 * time.Second, MaxBytes: 1 << 20, BraveAPIKey: " k "})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Allowed.Match("docs.example.com") || !c.Private.Listed("localhost") || c.FetchTimeout() != 5*time.Second || c.BodyCap() != 1<<20 || c.BraveAPIKey != "k" {
		t.Errorf("config %+v", c)
	}
	var zero Config
	if zero.FetchTimeout() != DefaultTimeout || zero.BodyCap() != DefaultMaxBytes || zero.Engine() != "DuckDuckGo" {
		t.Error("the zero Config does not give the defaults")
	}
}

// site is a local web server with a request counter.
type site struct {
	srv  *httptest.Server
	hits atomic.Int32
}

func newSite(t *testing.T, routes map[string]http.HandlerFunc) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	for path, h := range routes {
		mux.HandleFunc(path, h)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func localClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	var err error
	if cfg.Private.Empty() {
		if cfg.Private, err = parsePrivate("127.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	c := New(cfg)
	t.Cleanup(c.Close)
	return c
}

func parsePrivate(entries ...string) (p hostrule.PrivateList, err error) {
	c, err := NewConfig(Settings{PrivateHosts: entries})
	return c.Private, err
}

func body(contentType string, b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.Write(b)
	}
}

func (s *site) fetch(t *testing.T, c *Client, path string, raw bool) (*Page, error) {
	t.Helper()
	tg, err := c.Check(s.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	return c.Fetch(context.Background(), tg, raw)
}

func TestFetchByContentType(t *testing.T) {
	article := webtest.Article(20 << 10)
	s := newSite(t, map[string]http.HandlerFunc{
		"/article": body("text/html; charset=utf-8", []byte(article)),
		"/latin1":  body("text/html", []byte(`<html><head><meta charset="iso-8859-1"><title>Caf`+"\xe9"+`</title></head><body><p>`+"Cr\xe8me br\xfbl\xe9e"+`</p></body></html>`)),
		"/koi8":    body("text/plain; charset=koi8-r", []byte("\xf0\xd2\xc9\xd7\xc5\xd4")),
		"/text":    body("text/plain", []byte("line one\nline two\n")),
		"/json":    body("application/json", []byte(`{"a": [1, 2]}`)),
		"/xml":     body("application/xml", []byte(`<?xml version="1.0"?><feed><entry>x</entry></feed>`)),
		"/md":      body("text/markdown", []byte("# Title\n\nText.")),
		"/sniffed": body("", []byte("plain words, no header")),
		"/png":     body("image/png", []byte("\x89PNG\r\n\x1a\n")),
		"/pdf":     body("application/pdf", []byte("%PDF-1.7")),
		"/zip":     body("application/zip", []byte("PK\x03\x04")),
	})
	c := localClient(t, Config{})
	p, err := s.fetch(t, c, "/article", false)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Converted || p.Title != "How the cache works" || p.MediaType != "text/html" || !strings.Contains(p.Text, "## Section 1:") || strings.Contains(p.Text, "<p>") || p.Status != "200 OK" {
		t.Errorf("article: %+v", p)
	}
	if p.Chars != utf8.RuneCountInString(p.Text) {
		t.Errorf("Chars = %d", p.Chars)
	}
	if p, err := s.fetch(t, c, "/article", true); err != nil || p.Converted || p.Text != article {
		t.Errorf("raw: the HTML is not returned untouched (%v)", err)
	}
	if p, err := s.fetch(t, c, "/latin1", false); err != nil || p.Title != "Café" || !strings.Contains(p.Text, "Crème brûlée") {
		t.Errorf("latin-1 page: %+v, %v", p, err)
	}
	for path, want := range map[string]string{
		"/koi8":    "Привет",
		"/text":    "line one\nline two\n",
		"/json":    `{"a": [1, 2]}`,
		"/xml":     `<?xml version="1.0"?><feed><entry>x</entry></feed>`,
		"/md":      "# Title\n\nText.",
		"/sniffed": "plain words, no header",
	} {
		p, err := s.fetch(t, c, path, false)
		if err != nil || p.Text != want || p.Converted {
			t.Errorf("%s: %q, %v; want %q as it is", path, p.Text, err, want)
		}
	}
	for path, media := range map[string]string{"/png": "image/png", "/pdf": "application/pdf", "/zip": "application/zip"} {
		_, err := s.fetch(t, c, path, false)
		var be *BinaryError
		if !errors.As(err, &be) || be.MediaType != media || !strings.Contains(err.Error(), media) {
			t.Errorf("%s: err = %v, want one naming %s", path, err, media)
		}
		if _, err := s.fetch(t, c, path, true); !errors.As(err, &be) {
			t.Errorf("%s raw: err = %v; binary data is never returned", path, err)
		}
	}
}

// A body labelled text that holds binary is refused like a binary type;
// what a text page carries that a terminal or a reader would act on is
// shown as escapes, in the text and in the title.
func TestFetchRefusesBinaryAndShowsEscapes(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/nul":   body("text/plain", []byte("looks like text\x00\x00\x01\x02 but is not")),
		"/json":  body("application/json", []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f")),
		"/evil":  body("text/plain", []byte("run \x1b[2Jthis\u202e\u2066 now\r\n")),
		"/title": body("text/html", []byte("<html><head><title>T\x1b]0;pwned\x07</title></head><body><p>A paragraph with \u202e reversed text, long enough to be kept as the main content of the page.</p></body></html>")),
	})
	c := localClient(t, Config{})
	for _, path := range []string{"/nul", "/json"} {
		for _, raw := range []bool{false, true} {
			_, err := s.fetch(t, c, path, raw)
			var be *BinaryError
			if !errors.As(err, &be) || !be.Mislabelled {
				t.Errorf("%s (raw %v): err = %v, want a mislabelled binary body", path, raw, err)
			}
		}
	}
	p, err := s.fetch(t, c, "/evil", false)
	if err != nil || p.Text != `run \x1b[2Jthis\u202e\u2066 now`+"\n" {
		t.Errorf("escapes: %q, %v", p.Text, err)
	}
	p, err = s.fetch(t, c, "/title", false)
	if err != nil || strings.ContainsAny(p.Title+p.Text, "\x1b\x07\u202e") || !strings.Contains(p.Title, `\x1b]0;pwned\x07`) || !strings.Contains(p.Text, `\u202e`) {
		t.Errorf("html: title %q text %q, %v", p.Title, p.Text, err)
	}
}

func TestFetchKeepsPages(t *testing.T) {
	var status atomic.Int32
	status.Store(200)
	s := newSite(t, map[string]http.HandlerFunc{
		"/page": body("text/plain", []byte("hello")),
		"/flaky": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(int(status.Load()))
			w.Write([]byte("state"))
		},
		"/away": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
		},
	})
	c := localClient(t, Config{})
	tg, _ := c.Check(s.srv.URL + "/page")
	if _, ok := c.Cached(tg, false); ok {
		t.Fatal("cached before any fetch")
	}
	if _, err := c.Fetch(context.Background(), tg, false); err != nil {
		t.Fatal(err)
	}
	p, ok := c.Cached(tg, false)
	if !ok || p.Text != "hello" || s.hits.Load() != 1 {
		t.Fatalf("cached %v %v after %d requests", p, ok, s.hits.Load())
	}
	if _, ok := c.Cached(tg, true); ok {
		t.Error("the converted page is served for a raw request")
	}
	// An error status is not kept.
	status.Store(503)
	ftg, _ := c.Check(s.srv.URL + "/flaky")
	if p, err := c.Fetch(context.Background(), ftg, false); err != nil || p.StatusCode != 503 {
		t.Fatalf("503: %+v, %v", p, err)
	}
	if _, ok := c.Cached(ftg, false); ok {
		t.Error("a 503 page was kept")
	}
	// A redirect off the site is kept, and reported.
	atg, _ := c.Check(s.srv.URL + "/away")
	p, err := c.Fetch(context.Background(), atg, false)
	if err != nil || p.Redirect != "https://elsewhere.example/" || p.StatusCode != 302 {
		t.Fatalf("redirect: %+v, %v", p, err)
	}
	if _, ok := c.Cached(atg, false); !ok {
		t.Error("the redirect was not kept")
	}
}

func TestWindow(t *testing.T) {
	page := func(s string) *Page { return &Page{Text: s, Chars: utf8.RuneCountInString(s)} }
	p := page("abcdefghij")
	if part, next := p.Window(0, 4, 100); part != "abcd" || next != 4 {
		t.Errorf("Window(0,4) = %q, %d", part, next)
	}
	if part, next := p.Window(8, 4, 100); part != "ij" || next != 10 {
		t.Errorf("Window(8,4) = %q, %d", part, next)
	}
	if part, next := p.Window(20, 4, 100); part != "" || next != 10 {
		t.Errorf("past the end = %q, %d", part, next)
	}
	// Characters, not bytes: each of these is two bytes.
	u := page("éééééé")
	if part, next := u.Window(2, 3, 100); part != "ééé" || next != 5 {
		t.Errorf("unicode by characters = %q, %d", part, next)
	}
	if part, next := u.Window(0, 100, 5); part != "éé" || next != 2 {
		t.Errorf("unicode by bytes = %q, %d; a character is never split", part, next)
	}
	// A break near the end of the window falls on a line end.
	lines := page(strings.Repeat("0123456789\n", 10))
	part, next := lines.Window(0, 50, 1000)
	if part != strings.Repeat("0123456789\n", 4) || next != 44 {
		t.Errorf("line break: %q, %d", part, next)
	}
	// Paging covers the text exactly once.
	var b strings.Builder
	for start := 0; start < lines.Chars; {
		part, n := lines.Window(start, 17, 1000)
		if n <= start {
			t.Fatalf("no progress at %d", start)
		}
		b.WriteString(part)
		start = n
	}
	if b.String() != lines.Text {
		t.Errorf("paging lost or repeated text")
	}
	// A window smaller than one character still moves on.
	if part, next := u.Window(0, 1, 1); part != "é" || next != 1 {
		t.Errorf("tiny window = %q, %d", part, next)
	}
}

func TestSearchHTML(t *testing.T) {
	results, err := os.ReadFile("ddg/testdata/results.html")
	if err != nil {
		t.Fatal(err)
	}
	var mode atomic.Value
	mode.Store("ok")
	s := newSite(t, map[string]http.HandlerFunc{
		"/html/": func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.FormValue("q") == "" {
				http.Error(w, "bad request", 400)
				return
			}
			switch mode.Load() {
			case "captcha":
				w.WriteHeader(http.StatusAccepted)
				w.Write([]byte(`<div class="anomaly-modal__modal"></div>`))
			case "changed":
				w.Write([]byte(`<html><body><form><input name="q"></form><div class="hits"></div></body></html>`))
			case "error":
				http.Error(w, "down", 500)
			default:
				w.Write(results)
			}
		},
	})
	c := localClient(t, Config{SearchEndpoint: s.srv.URL + "/html/"})
	rs, err := c.Search(context.Background(), "golang context cancel", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].URL != "https://pkg.go.dev/context" {
		t.Fatalf("results %+v", rs)
	}
	hits := s.hits.Load()
	if again, err := c.Search(context.Background(), "golang context cancel", 2); err != nil || len(again) != 2 || s.hits.Load() != hits {
		t.Fatalf("a repeated search asked again (%d requests)", s.hits.Load())
	}
	for m, want := range map[string]error{"captcha": ErrRateLimited, "changed": ErrUnreadable} {
		mode.Store(m)
		if _, err := c.Search(context.Background(), "q "+m, 5); !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", m, err, want)
		}
	}
	mode.Store("error")
	if _, err := c.Search(context.Background(), "q error", 5); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("HTTP 500: err = %v", err)
	}
	// The endpoint is reached through the guard: a loopback endpoint the
	// user did not list is refused.
	guarded := New(Config{SearchEndpoint: s.srv.URL + "/html/"})
	defer guarded.Close()
	if _, err := guarded.Search(context.Background(), "x", 5); !errors.As(err, new(*BlockedError)) {
		t.Errorf("unlisted loopback endpoint: %v", err)
	}
}

func TestSearchBrave(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/res/v1/web/search": func(w http.ResponseWriter, r *http.Request) {
			switch r.Header.Get("X-Subscription-Token") {
			case "good":
				fmt.Fprintf(w, `{"web":{"results":[{"title":"A <strong>hit</strong>\u001b[8m","url":"https://a.example/","description":"for %s, %s\u202e"}]}}`, r.URL.Query().Get("q"), r.URL.Query().Get("count"))
			case "spent":
				w.WriteHeader(http.StatusTooManyRequests)
			default:
				w.WriteHeader(http.StatusUnauthorized)
			}
		},
	})
	for key, want := range map[string]error{"good": nil, "spent": ErrRateLimited, "wrong": ErrKeyRefused} {
		c := localClient(t, Config{BraveAPIKey: key, BraveEndpoint: s.srv.URL + "/res/v1/web/search"})
		rs, err := c.Search(context.Background(), "go", 3)
		if want != nil {
			if !errors.Is(err, want) {
				t.Errorf("key %s: err = %v, want %v", key, err, want)
			}
			continue
		}
		// Escapes in results are shown, never passed on.
		if err != nil || len(rs) != 1 || rs[0].Title != `A hit\x1b[8m` || rs[0].Snippet != `for go, 3\u202e` {
			t.Errorf("key %s: %+v, %v", key, rs, err)
		}
	}
}
