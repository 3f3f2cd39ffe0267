package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/web/hostrule"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func private(t *testing.T, entries ...string) hostrule.PrivateList {
	t.Helper()
	p, err := hostrule.ParsePrivateList(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newClient(t *testing.T, o Options) *Client {
	t.Helper()
	c := New(o)
	t.Cleanup(c.Close)
	return c
}

// serve starts a local HTTP server and returns it with its port.
func serve(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return srv, port
}

// to sends every dial to srv.
func to(srv *httptest.Server) func(string) string {
	return func(string) string { return srv.Listener.Addr().String() }
}

func TestCheck(t *testing.T) {
	c := newClient(t, Options{Private: private(t, "localhost", "devbox", "10.0.0.0/8")})
	long := "https://example.com/" + strings.Repeat("a", MaxURLLength)
	tests := []struct {
		raw, want, host string
		upgraded        bool
		refused         string
	}{
		{"https://Example.COM./a?b=1#frag", "https://example.com/a?b=1", "example.com", false, ""},
		{"http://example.com/a", "https://example.com/a", "example.com", true, ""},
		{"http://example.com:80/a", "https://example.com/a", "example.com", true, ""},
		{"http://example.com:8080/a", "https://example.com:8080/a", "example.com", true, ""},
		{"HTTPS://example.com", "https://example.com/", "example.com", false, ""},
		{"https://bücher.example/x", "https://xn--bcher-kva.example/x", "xn--bcher-kva.example", false, ""},
		{"https://[2606:4700::1111]:8443/", "https://[2606:4700::1111]:8443/", "2606:4700::1111", false, ""},
		{"http://localhost:3000/", "http://localhost:3000/", "localhost", false, ""},
		{"http://devbox/", "http://devbox/", "devbox", false, ""},
		{"http://10.1.2.3/", "http://10.1.2.3/", "10.1.2.3", false, ""},
		{"http://93.184.215.14:3000/", "https://93.184.215.14:3000/", "93.184.215.14", true, ""},
		{"ftp://example.com/", "", "", false, "only http and https"},
		{"file:///etc/passwd", "", "", false, "only http and https"},
		{"example.com/page", "", "", false, "no scheme"},
		{"https:example.com", "", "", false, "no host"},
		{"https://example.com@evil.test/", "", "", false, `user info (a name or password before @) is not fetched; the host it reaches would be "evil.test"`},
		{"https://user:pw@example.com/", "", "", false, "user info"},
		{"https://intranet/", "", "", false, "single-label"},
		{"http://localhos/", "", "", false, "single-label"},
		{"https://0x7f.1/", "", "", false, "IP address"},
		{"https://example.com:99999/", "", "", false, "not a port"},
		{long, "", "", false, "characters long"},
		{"https://exa mple.com/", "", "", false, "not a valid URL"},
	}
	for _, tt := range tests {
		got, err := c.Check(tt.raw)
		if tt.refused != "" {
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("Check(%.60q) = %v, %v; want refused with %q", tt.raw, got.URL, err, tt.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("Check(%q): %v", tt.raw, err)
			continue
		}
		if got.URL.String() != tt.want || got.Host != tt.host || got.Upgraded != tt.upgraded {
			t.Errorf("Check(%q) = %s host %s upgraded %v; want %s host %s upgraded %v", tt.raw, got.URL, got.Host, got.Upgraded, tt.want, tt.host, tt.upgraded)
		}
	}
	// localhost without the user's word is refused, as any single label.
	bare := newClient(t, Options{})
	if _, err := bare.Check("http://localhost:3000/"); err == nil || !strings.Contains(err.Error(), "single-label") {
		t.Errorf("localhost not listed: %v", err)
	}
	// An address, or a name under localhost, the guard would refuse at dial
	// time is refused by Check, so nobody is asked about a fetch that
	// cannot happen. Nothing is looked up.
	for raw, kind := range map[string]string{
		"http://127.0.0.1:3000/":      "loopback",
		"https://[::1]/":              "loopback",
		"https://[::ffff:127.0.0.1]/": "loopback",
		"https://192.168.1.1/":        "private",
		"https://169.254.169.254/":    "link-local",
		"https://app.localhost:8080/": "loopback",
		"https://0.0.0.0/":            "unspecified",
		"https://[fd00::1]/":          "unique-local",
		"https://100.64.0.1/":         "CGNAT",
	} {
		var b *BlockedError
		if _, err := bare.Check(raw); !errors.As(err, &b) || !strings.Contains(b.Kind, kind) {
			t.Errorf("Check(%s) = %v, want blocked as %s", raw, err, kind)
		}
	}
	// The user's own network is not.
	if _, err := c.Check("https://10.9.8.7/"); err != nil {
		t.Errorf("a listed network: %v", err)
	}
}

func TestGuardAddresses(t *testing.T) {
	g := newGuard(private(t, "192.168.7.0/24", "devbox"))
	tests := []struct {
		host, addr string
		kind       string // "" allowed
	}{
		{"example.com", "93.184.215.14:443", ""},
		{"example.com", "[2606:4700::1111]:443", ""},
		{"example.com", "127.0.0.1:443", "loopback"},
		{"example.com", "127.9.9.9:80", "loopback"},
		{"example.com", "10.1.2.3:80", "private"},
		{"example.com", "172.16.0.1:80", "private"},
		{"example.com", "192.168.1.1:80", "private"},
		{"example.com", "169.254.169.254:80", "link-local"},
		{"example.com", "100.64.0.1:80", "CGNAT"},
		{"example.com", "224.0.0.1:80", "multicast"},
		{"example.com", "0.0.0.0:80", "unspecified"},
		{"example.com", "[::1]:80", "loopback"},
		{"example.com", "[::]:80", "unspecified"},
		{"example.com", "[fe80::1]:80", "link-local"},
		{"example.com", "[fd00::1]:80", "unique-local"},
		{"example.com", "[ff02::1]:80", "multicast"},
		{"example.com", "[::ffff:127.0.0.1]:80", "IPv4-mapped loopback"},
		{"example.com", "[::ffff:10.0.0.1]:80", "IPv4-mapped private"},
		{"example.com", "192.0.2.1:80", "reserved"},
		// The user's network is allowed, whatever name led there.
		{"example.com", "192.168.7.20:80", ""},
		// A host listed by name may reach private addresses, never multicast
		// or unspecified ones.
		{"devbox", "127.0.0.1:8080", ""},
		{"devbox", "10.0.0.5:8080", ""},
		{"devbox", "224.0.0.1:80", "multicast"},
		{"devbox", "0.0.0.0:80", "unspecified"},
	}
	for _, tt := range tests {
		network := "tcp4"
		if strings.HasPrefix(tt.addr, "[") {
			network = "tcp6"
		}
		err := g.control(tt.host)(network, tt.addr, nil)
		if tt.kind == "" {
			if err != nil {
				t.Errorf("%s at %s refused: %v", tt.host, tt.addr, err)
			}
			continue
		}
		var b *BlockedError
		if !errors.As(err, &b) || !strings.Contains(b.Kind, tt.kind) {
			t.Errorf("%s at %s: err = %v, want refused as %s", tt.host, tt.addr, err, tt.kind)
		}
	}
}

// By default the guard refuses a local server, by address and by a name
// that resolves to it; nothing reaches the server.
func TestGuardRefusesLoopbackByDefault(t *testing.T) {
	var hits atomic.Int32
	srv, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	c := newClient(t, Options{})
	for _, raw := range []string{"http://127.0.0.1:" + port + "/", "https://evil.test:" + port + "/"} {
		if raw == "https://evil.test:"+port+"/" {
			c.RewriteDial(to(srv))
		}
		tg, err := c.Check(raw) // the address itself is refused here already
		if err == nil {
			_, err = c.Get(context.Background(), tg, "*/*")
		}
		var b *BlockedError
		if !errors.As(err, &b) || b.Kind != "loopback" {
			t.Errorf("%s: err = %v, want the guard's refusal", raw, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the server was reached %d times", hits.Load())
	}
}

func TestPrivateHostsReachLocalServers(t *testing.T) {
	srv, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s, agent %s", r.Host, r.UserAgent())
	}))
	for _, entry := range []string{"127.0.0.1/32", "localhost"} {
		c := newClient(t, Options{Private: private(t, entry), UserAgent: "tether-test"})
		host := "127.0.0.1"
		if entry == "localhost" {
			host = "localhost"
			c.RewriteDial(to(srv))
		}
		tg, err := c.Check("http://" + host + ":" + port + "/")
		if err != nil {
			t.Fatal(err)
		}
		if tg.Upgraded || !tg.Private {
			t.Errorf("%s: a private host was upgraded (%+v)", entry, tg)
		}
		resp, err := c.Get(context.Background(), tg, "*/*")
		if err != nil {
			t.Fatalf("%s: %v", entry, err)
		}
		if !strings.Contains(string(resp.Body), "hello from "+host) || !strings.Contains(string(resp.Body), "tether-test") {
			t.Errorf("%s: body %q", entry, resp.Body)
		}
	}
}

// An http URL of a public host is fetched over TLS; the test's TLS server
// is reached through the user's network rule.
func TestUpgradeToTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls=%v host=%s", r.TLS != nil, r.Host)
	}))
	defer srv.Close()
	c := newClient(t, Options{Private: private(t, "127.0.0.1/32")})
	c.TrustTLS(srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs)
	c.RewriteDial(to(srv))
	tg, err := c.Check("http://example.com/page")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(context.Background(), tg, "*/*")
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "tls=true host=example.com" || resp.URL.String() != "https://example.com/page" {
		t.Errorf("got %q from %s", resp.Body, resp.URL)
	}
}

func TestRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "final at %s", r.Host) })
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/final", http.StatusFound) })
	mux.HandleFunc("/www", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://www.site.test:"+portOf(r)+"/final", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://other.test:"+portOf(r)+"/final", http.StatusFound)
	})
	mux.HandleFunc("/port", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://site.test:1/final", http.StatusFound)
	})
	mux.HandleFunc("/scheme", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://site.test:"+portOf(r)+"/final", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/userinfo", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://site.test@evil.test:"+portOf(r)+"/final", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/chain/"), "%d", &n)
		if n == 0 {
			http.Redirect(w, r, "/final", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), http.StatusFound)
	})
	srv, port := serve(t, mux)
	c := newClient(t, Options{Private: private(t, "site.test", "www.site.test", "other.test")})
	c.RewriteDial(to(srv))
	get := func(path string) (*Response, error) {
		tg, err := c.Check("http://site.test:" + port + path)
		if err != nil {
			t.Fatal(err)
		}
		return c.Get(context.Background(), tg, "*/*")
	}
	// Followed: same host, and www. added.
	for _, path := range []string{"/same", "/www", fmt.Sprintf("/chain/%d", MaxRedirects-1)} {
		resp, err := get(path)
		if err != nil || resp.Redirect != nil || !strings.HasPrefix(string(resp.Body), "final at") {
			t.Errorf("%s: %+v, %v; want the final page", path, resp, err)
		}
	}
	// Returned: another host, port or scheme, or a URL that is refused.
	for path, want := range map[string]string{
		"/other":    "http://other.test:" + port + "/final",
		"/port":     "http://site.test:1/final",
		"/scheme":   "https://site.test:" + port + "/final",
		"/userinfo": "http://site.test@evil.test:" + port + "/final",
	} {
		resp, err := get(path)
		if err != nil || resp.Redirect == nil || resp.Redirect.String() != want || len(resp.Body) != 0 {
			t.Errorf("%s: %+v, %v; want the redirect to %s returned", path, resp, err, want)
			continue
		}
		if resp.URL.Path != path || resp.StatusCode/100 != 3 {
			t.Errorf("%s: the redirect is reported from %s with status %d", path, resp.URL, resp.StatusCode)
		}
	}
	// Stopped: a loop, and one hop too many.
	for _, path := range []string{"/loop", fmt.Sprintf("/chain/%d", MaxRedirects)} {
		if _, err := get(path); !errors.Is(err, ErrTooManyRedirects) {
			t.Errorf("%s: err = %v, want too many redirects", path, err)
		}
	}
}

func portOf(r *http.Request) string {
	_, port, _ := net.SplitHostPort(r.Host)
	return port
}

func TestBodyCap(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2048)
	mux := http.NewServeMux()
	mux.HandleFunc("/declared", func(w http.ResponseWriter, r *http.Request) { w.Write(big) })
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 4; i++ {
			w.Write(big[:512])
			w.(http.Flusher).Flush()
		}
		w.Write([]byte("!"))
	})
	mux.HandleFunc("/fits", func(w http.ResponseWriter, r *http.Request) { w.Write(big[:1024]) })
	// A small gzip body that inflates past the cap.
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write(bytes.Repeat([]byte("0"), 1<<20))
		zw.Close()
	})
	_, port := serve(t, mux)
	c := newClient(t, Options{Private: private(t, "127.0.0.1"), MaxBytes: 1024})
	get := func(path string) (*Response, error) {
		tg, _ := c.Check("http://127.0.0.1:" + port + path)
		return c.Get(context.Background(), tg, "*/*")
	}
	for path, declared := range map[string]int64{"/declared": 2048, "/chunked": -1, "/bomb": -1} {
		_, err := get(path)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Limit != 1024 || tl.Declared != declared {
			t.Errorf("%s: err = %v, want over the cap (declared %d)", path, err, declared)
		}
	}
	if resp, err := get("/fits"); err != nil || len(resp.Body) != 1024 {
		t.Errorf("a body at the cap: %v", err)
	}
}

func TestGzip(t *testing.T) {
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Write([]byte("plain"))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/plain")
		zw := gzip.NewWriter(w)
		zw.Write([]byte("inflated text"))
		zw.Close()
	}))
	c := newClient(t, Options{Private: private(t, "127.0.0.1")})
	tg, _ := c.Check("http://127.0.0.1:" + port + "/")
	resp, err := c.Get(context.Background(), tg, "*/*")
	if err != nil || string(resp.Body) != "inflated text" {
		t.Fatalf("got %q, %v", resp.Body, err)
	}
}

// A slow server: the caller's cancellation ends the fetch while the server
// is still holding the request, and the time limit does too.
func TestSlowServer(t *testing.T) {
	reached := make(chan struct{}, 4)
	release := make(chan struct{})
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("start"))
		w.(http.Flusher).Flush()
		reached <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer close(release)
	c := newClient(t, Options{Private: private(t, "127.0.0.1")})
	tg, _ := c.Check("http://127.0.0.1:" + port + "/")

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-reached; cancel() }()
	_, err := c.Get(ctx, tg, "*/*")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}

	short := newClient(t, Options{Private: private(t, "127.0.0.1"), Timeout: 50 * time.Millisecond})
	_, err = short.Get(context.Background(), tg, "*/*")
	var te *TimeoutError
	if !errors.As(err, &te) || te.After != 50*time.Millisecond {
		t.Errorf("time limit: err = %v", err)
	}
	<-reached
}

// The environment's proxy is never used.
func TestNoProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { proxied.Add(1) }))
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("direct")) }))
	c := newClient(t, Options{Private: private(t, "127.0.0.1", "site.test")})
	c.RewriteDial(func(addr string) string {
		if strings.HasPrefix(addr, "site.test:") {
			return "127.0.0.1:" + port
		}
		return addr
	})
	tg, _ := c.Check("http://site.test:" + port + "/")
	resp, err := c.Get(context.Background(), tg, "*/*")
	if err != nil || string(resp.Body) != "direct" || proxied.Load() != 0 {
		t.Fatalf("body %v, err %v, proxied %d", resp, err, proxied.Load())
	}
}

func TestDoSendsOneRequest(t *testing.T) {
	_, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			fmt.Fprintf(w, "q=%s", r.Form.Get("q"))
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	c := newClient(t, Options{Private: private(t, "127.0.0.1")})
	u := "http://127.0.0.1:" + port + "/"
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(url.Values{"q": {"go"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(context.Background(), req)
	if err != nil || string(resp.Body) != "q=go" {
		t.Fatalf("POST: %v, %v", resp, err)
	}
	get, _ := http.NewRequest(http.MethodGet, u, nil)
	resp, err = c.Do(context.Background(), get)
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("Do followed a redirect: %+v, %v", resp, err)
	}
	// The guard holds for Do too.
	bare := newClient(t, Options{})
	if _, err := bare.Do(context.Background(), get); !errors.As(err, new(*BlockedError)) {
		t.Fatalf("Do reached a loopback server: %v", err)
	}
}

func TestSameSite(t *testing.T) {
	u := func(s string) *url.URL { p, _ := url.Parse(s); return p }
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://example.com/a", "https://example.com/b", true},
		{"https://example.com/a", "https://www.example.com/b", true},
		{"https://www.example.com/a", "https://example.com/b", true},
		{"https://example.com/a", "https://example.com:443/b", true},
		{"https://example.com/a", "https://example.com:8443/b", false},
		{"https://example.com/a", "http://example.com/b", false},
		{"https://example.com/a", "https://docs.example.com/b", false},
		{"https://example.com/a", "https://wwwexample.com/b", false},
	}
	for _, tt := range tests {
		if got := sameSite(u(tt.a), u(tt.b)); got != tt.want {
			t.Errorf("sameSite(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

// An internationalised host is requested, and judged, in its ASCII form.
func TestIDNAHost(t *testing.T) {
	srv, port := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "host=%s", r.Host)
	}))
	c := newClient(t, Options{Private: private(t, "bücher.test")})
	var dialed atomic.Value
	c.RewriteDial(func(addr string) string { dialed.Store(addr); return srv.Listener.Addr().String() })
	tg, err := c.Check("http://BÜCHER.test:" + port + "/katalog")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Host != "xn--bcher-kva.test" || !tg.Private || tg.Upgraded {
		t.Fatalf("target %+v", tg)
	}
	resp, err := c.Get(context.Background(), tg, "*/*")
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "host=xn--bcher-kva.test:"+port || dialed.Load() != "xn--bcher-kva.test:"+port {
		t.Fatalf("body %q, dialed %v", resp.Body, dialed.Load())
	}
}
