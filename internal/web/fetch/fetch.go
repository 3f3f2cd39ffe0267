// Package fetch is the web client of the web tools: it checks a URL before
// anything is sent (scheme, length, user info, host), upgrades http to
// https except for the user's private hosts, connects only to addresses
// the guard allows (checked at dial time, on the address dialed), follows
// redirects by hand and only within the same site, and reads a body no
// larger than its cap, all within one time limit. It never uses the
// environment's proxy.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/web/hostrule"
)

// Defaults, used where Options leave a field zero.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxBytes = 10 << 20
	// MaxURLLength is the longest URL fetched.
	MaxURLLength = 2000
	// MaxRedirects is how many same-site redirects one fetch follows.
	MaxRedirects = 10
)

// Options configure a Client.
type Options struct {
	// Private lists the hosts and networks on loopback or private networks
	// that requests may reach; they are also fetched over http as given.
	Private hostrule.PrivateList
	// Timeout bounds a whole fetch: connecting, every redirect and reading
	// the body.
	Timeout time.Duration
	// MaxBytes caps a response body (after decompression).
	MaxBytes int64
	// UserAgent is sent with every request.
	UserAgent string
}

// Client fetches URLs under the rules above. It is safe for concurrent use
// and keeps connections alive between calls.
type Client struct {
	opts  Options
	guard *guard
	http  *http.Client
	// rewrite, set only by tests, changes the address dialed (not the host
	// judged), to reach a local server under another name.
	rewrite func(addr string) string
}

// New makes a Client.
func New(o Options) *Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	c := &Client{opts: o, guard: newGuard(o.Private)}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		// Never the environment's proxy: the guard would judge the proxy's
		// address instead of the site's.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if c.rewrite != nil {
				addr = c.rewrite(addr)
			}
			d := *dialer
			d.Control = c.guard.control(host)
			return d.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           32,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	c.http = &http.Client{
		Transport: tr,
		// Redirects are walked by hand (Get), each hop checked again.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// MaxBytes is the body cap in force.
func (c *Client) MaxBytes() int64 { return c.opts.MaxBytes }

// Timeout is the time limit in force.
func (c *Client) Timeout() time.Duration { return c.opts.Timeout }

// Close drops the idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// RefusedError is a URL that is not fetched, and why.
type RefusedError struct {
	URL    string
	Reason string
}

func (e *RefusedError) Error() string { return "fetch " + e.URL + ": " + e.Reason }

// Target is a URL checked for fetching.
type Target struct {
	// URL is what will be requested: host in canonical form, no fragment,
	// https unless the host is one of the user's private hosts.
	URL *url.URL
	// Host is the canonical host, which the permission rules judge.
	Host string
	// Upgraded is set when http was changed to https.
	Upgraded bool
	// Private is set when the user listed the host as a private host.
	Private bool
}

// Check parses and checks raw, and says what would be fetched. Nothing is
// sent.
func (c *Client) Check(raw string) (Target, error) {
	refuse := func(format string, args ...any) (Target, error) {
		shown := raw
		if len(shown) > 200 {
			shown = shown[:200] + "…"
		}
		return Target{}, &RefusedError{URL: shown, Reason: fmt.Sprintf(format, args...)}
	}
	raw = strings.TrimSpace(raw)
	if len(raw) > MaxURLLength {
		return refuse("the URL is %d characters long; the most fetched is %d", len(raw), MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return refuse("not a valid URL: %v", errors.Unwrap(err))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		if scheme == "" {
			return refuse("the URL has no scheme; give a full http:// or https:// URL")
		}
		return refuse("only http and https URLs are fetched, not %s:", scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return refuse("the URL has no host")
	}
	if u.User != nil {
		return refuse("a URL with user info (a name or password before @) is not fetched; the host it reaches would be %q", u.Hostname())
	}
	host, err := hostrule.Canonical(u.Hostname())
	if err != nil {
		return refuse("%v", err)
	}
	t := Target{Host: host, Private: c.opts.Private.Listed(host)}
	if hostrule.SingleLabel(host) && !t.Private {
		return refuse("%q is a single-label host name (a machine on the local network); it is fetched only when the user lists it as a private host", host)
	}
	if !t.Private {
		// An address the guard would refuse at dial time is refused now,
		// before anyone is asked to allow the fetch.
		if err := c.guard.refusesLiteral(host); err != nil {
			return Target{}, err
		}
	}
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return refuse("%q is not a port", port)
		}
	}
	if scheme == "http" && !t.Private {
		scheme, t.Upgraded = "https", true
		if port == "80" {
			port = ""
		}
	}
	out := *u
	out.Scheme = scheme
	out.Host = joinHost(host, port)
	out.Fragment, out.RawFragment = "", ""
	if out.Path == "" {
		out.Path = "/"
	}
	t.URL = &out
	return t, nil
}

// joinHost writes host and port as a URL's host part.
func joinHost(host, port string) string {
	if port != "" {
		return net.JoinHostPort(host, port)
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Is6() {
		return "[" + host + "]"
	}
	return host
}

// Response is the outcome of a fetch: a page, or a redirect that leaves
// the site.
type Response struct {
	// URL is where the body came from, after same-site redirects.
	URL        *url.URL
	StatusCode int
	Status     string // "200 OK"
	// ContentType is the Content-Type header, as sent.
	ContentType string
	Body        []byte
	// Redirect, when set, is a redirect to another site (or scheme, or
	// port) that was not followed; Body is empty.
	Redirect *url.URL
	// Hops counts the same-site redirects followed.
	Hops int
}

// TooLargeError is a body over the cap.
type TooLargeError struct {
	URL   string
	Limit int64
	// Declared is the Content-Length the server sent, or -1.
	Declared int64
}

func (e *TooLargeError) Error() string {
	if e.Declared > 0 {
		return fmt.Sprintf("fetch %s: the body is %d bytes, over the cap of %d", e.URL, e.Declared, e.Limit)
	}
	return fmt.Sprintf("fetch %s: the body is over the cap of %d bytes", e.URL, e.Limit)
}

// TimeoutError is a fetch that ran past its time limit.
type TimeoutError struct {
	URL   string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("fetch %s: no complete answer within %s", e.URL, e.After)
}

// ErrTooManyRedirects ends a fetch that kept being redirected.
var ErrTooManyRedirects = fmt.Errorf("stopped after %d redirects", MaxRedirects)

var errTimeout = errors.New("time limit")

// Get fetches t, following redirects within the same site (same scheme,
// host and port; a leading "www." ignored), each hop checked again. A
// redirect anywhere else ends the fetch with Response.Redirect set. accept
// is the Accept header.
func (c *Client) Get(ctx context.Context, t Target, accept string) (*Response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, errTimeout)
	defer cancel()
	u := t.URL
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", accept)
		resp, err := c.send(ctx, req)
		if err != nil {
			return nil, err
		}
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" {
			return c.read(ctx, u, resp, hop)
		}
		drain(resp)
		next, err := u.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: the redirect to %q is not a valid URL", u, loc)
		}
		if hop == MaxRedirects {
			return nil, fmt.Errorf("fetch %s: %w (the last one to %s)", t.URL, ErrTooManyRedirects, next)
		}
		nt, err := c.recheck(next)
		if err != nil || !sameSite(u, nt.URL) {
			// Not followed: the model may fetch it as a new call, which is
			// judged again from the start.
			return &Response{URL: u, StatusCode: resp.StatusCode, Status: resp.Status, Redirect: next, Hops: hop}, nil
		}
		u = nt.URL
	}
}

// recheck checks a redirect target as a URL of its own, without the
// upgrade: a redirect to http is a redirect to another scheme.
func (c *Client) recheck(u *url.URL) (Target, error) {
	t, err := c.Check(u.String())
	if err == nil && t.Upgraded {
		t.URL.Scheme = "http"
	}
	return t, err
}

// Do sends one request (no redirect followed) under the same guard, time
// limit and body cap, and reads the response. For search endpoints.
func (c *Client) Do(ctx context.Context, req *http.Request) (*Response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, errTimeout)
	defer cancel()
	req = req.WithContext(ctx)
	resp, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	return c.read(ctx, req.URL, resp, 0)
}

func (c *Client) send(ctx context.Context, req *http.Request) (*http.Response, error) {
	if c.opts.UserAgent != "" {
		req.Header.Set("User-Agent", c.opts.UserAgent)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.explain(ctx, req.URL, err)
	}
	return resp, nil
}

// explain turns a transport error into one that says what happened: the
// guard's refusal, the time limit, or the caller's cancellation.
func (c *Client) explain(ctx context.Context, u *url.URL, err error) error {
	var blocked *BlockedError
	switch {
	case errors.As(err, &blocked):
		return blocked
	case context.Cause(ctx) == errTimeout:
		return &TimeoutError{URL: u.String(), After: c.opts.Timeout}
	case ctx.Err() != nil:
		return fmt.Errorf("fetch %s: %w", u, ctx.Err())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("fetch %s: %w", u, err)
}

func (c *Client) read(ctx context.Context, u *url.URL, resp *http.Response, hops int) (*Response, error) {
	defer resp.Body.Close()
	limit := c.opts.MaxBytes
	if resp.ContentLength > limit {
		return nil, &TooLargeError{URL: u.String(), Limit: limit, Declared: resp.ContentLength}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, c.explain(ctx, u, err)
	}
	if int64(len(body)) > limit {
		return nil, &TooLargeError{URL: u.String(), Limit: limit, Declared: -1}
	}
	return &Response{
		URL:         u,
		StatusCode:  resp.StatusCode,
		Status:      resp.Status,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        body,
		Hops:        hops,
	}, nil
}

// drain reads a little of a body we do not use, so the connection can be
// reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
	resp.Body.Close()
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// sameSite reports whether a redirect from a to b stays on the same
// scheme, host and port; "www." in front of either host is ignored.
func sameSite(a, b *url.URL) bool {
	if a.Scheme != b.Scheme || effectivePort(a) != effectivePort(b) {
		return false
	}
	return strings.TrimPrefix(a.Hostname(), "www.") == strings.TrimPrefix(b.Hostname(), "www.")
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}
