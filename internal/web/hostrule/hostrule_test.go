package hostrule

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		in, want string
		err      string
	}{
		{"Example.COM", "example.com", ""},
		{"example.com.", "example.com", ""},
		{"bücher.example", "xn--bcher-kva.example", ""},
		{"BÜCHER.example.", "xn--bcher-kva.example", ""},
		{"xn--bcher-kva.example", "xn--bcher-kva.example", ""},
		{"127.0.0.1", "127.0.0.1", ""},
		{"::1", "::1", ""},
		{"::ffff:127.0.0.1", "127.0.0.1", ""},
		{"2001:DB8::1", "2001:db8::1", ""},
		{"localhost", "localhost", ""},
		{"", "", "no host"},
		{"0x7f.1", "", "IP address"},
		{"127.1", "", "IP address"},
		{"1.2.3.4.5", "", "IP address"},
		{"a..b", "", "not a valid host name"},
		{"fe80::1%eth0", "", "zone"},
		{strings.Repeat("a", 64) + ".example", "", "63"},
		{"xn--zz.example", "", "not a valid host name"},
	}
	for _, tt := range tests {
		got, err := Canonical(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Canonical(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// The host a URL is judged by is the real one: user info before an @ is
// not the host.
func TestCanonicalOfAURLWithUserInfo(t *testing.T) {
	u, err := url.Parse("https://example.com@evil.test/")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := Canonical(u.Hostname()); err != nil || h != "evil.test" {
		t.Fatalf("judged host = %q, %v; want evil.test", h, err)
	}
}

func TestDisplay(t *testing.T) {
	if got := Display("xn--bcher-kva.example"); got != "bücher.example" {
		t.Errorf("Display = %q", got)
	}
	if got := Display("127.0.0.1"); got != "127.0.0.1" {
		t.Errorf("Display = %q", got)
	}
}

func TestSingleLabel(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "intranet": true, "example.com": false, "127.0.0.1": false, "::1": false} {
		if got := SingleLabel(host); got != want {
			t.Errorf("SingleLabel(%q) = %v", host, got)
		}
	}
}

func TestHostListMatches(t *testing.T) {
	l, err := ParseHostList([]string{"example.com", "*.docs.test", " Go.Dev ", "bücher.example"})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{
		"example.com":           true,
		"www.example.com":       false, // exact entries do not cover subdomains
		"docs.test":             false, // a wildcard does not cover the apex
		"a.docs.test":           true,
		"a.b.docs.test":         true, // any depth
		"evildocs.test":         false,
		"go.dev":                true,
		"xn--bcher-kva.example": true,
		"example.com.evil.test": false,
	}
	for host, want := range tests {
		if got := l.Match(host); got != want {
			t.Errorf("Match(%q) = %v, want %v", host, got, want)
		}
	}
	var zero HostList
	if zero.Match("example.com") || !zero.Empty() {
		t.Error("the zero list matches")
	}
}

func TestHostListRefusesMalformedEntries(t *testing.T) {
	tests := []struct{ entry, want string }{
		{"", "empty"},
		{"https://example.com", "not a host name"},
		{"example.com:443", "not a host name"},
		{"example.com/docs", "not a host name"},
		{"*", "leading"},
		{"*.com", "public suffix com"},
		{"*.co.uk", "public suffix co.uk"},
		{"*.github.io", "public suffix github.io"},
		{"*.internal", "public suffix internal"},
		{"ex*ample.com", "leading"},
		{"*.*.example.com", "leading"},
		{"*.127.0.0.1", "IP address"},
		{"a..b", "not a valid host name"},
	}
	for _, tt := range tests {
		_, err := ParseHostList([]string{"ok.example", tt.entry})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseHostList(%q) error = %v, want one with %q", tt.entry, err, tt.want)
			continue
		}
		if tt.entry != "" && !strings.Contains(err.Error(), tt.entry) {
			t.Errorf("the error does not name the entry %q: %v", tt.entry, err)
		}
	}
	// A wildcard one level below a public suffix is a site's own domain.
	if _, err := ParseHostList([]string{"*.example.co.uk", "*.user.github.io"}); err != nil {
		t.Errorf("site wildcards refused: %v", err)
	}
}

func TestPrivateList(t *testing.T) {
	p, err := ParsePrivateList([]string{"localhost", "devbox", "*.corp.example", "127.0.0.1", "10.1.0.0/16", "[::1]", "::ffff:192.168.1.5"})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{
		"localhost":      true,
		"devbox":         true,
		"a.corp.example": true,
		"corp.example":   false,
		"127.0.0.1":      true,
		"127.0.0.2":      false,
		"10.1.200.3":     true,
		"10.2.0.1":       false,
		"::1":            true,
		"192.168.1.5":    true,
		"example.com":    false,
	}
	for host, want := range listed {
		if got := p.Listed(host); got != want {
			t.Errorf("Listed(%q) = %v, want %v", host, got, want)
		}
	}
	if !p.Contains(netip.MustParseAddr("::ffff:10.1.0.1")) {
		t.Error("an IPv4-mapped address is not matched against IPv4 networks")
	}
	for _, bad := range []string{"10.0.0.0/33", "http://localhost", "*.com", "fe80::1%eth0"} {
		if _, err := ParsePrivateList([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParsePrivateList(%q) error = %v", bad, err)
		}
	}
	var zero PrivateList
	if !zero.Empty() || zero.Listed("localhost") {
		t.Error("the zero list allows something")
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"example.com", "bücher.example", "127.0.0.1", "::1", "0x7f.1", "a..b", "xn--", "EXAMPLE.com."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		c, err := Canonical(host)
		if err != nil {
			return
		}
		// The canonical form is a fixed point and plain ASCII.
		again, err := Canonical(c)
		if err != nil || again != c {
			t.Fatalf("Canonical(%q) = %q, but Canonical(%q) = %q, %v", host, c, c, again, err)
		}
		for i := 0; i < len(c); i++ {
			if c[i] >= 0x80 || (c[i] >= 'A' && c[i] <= 'Z') {
				t.Fatalf("Canonical(%q) = %q is not lowercase ASCII", host, c)
			}
		}
	})
}

func FuzzParseHostList(f *testing.F) {
	for _, s := range []string{"example.com", "*.example.com", "*.co.uk", "*", "a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		l, err := ParseHostList([]string{entry})
		if err != nil {
			return
		}
		// Whatever was accepted matches something, or its subdomains.
		h, _ := strings.CutPrefix(strings.TrimSpace(entry), "*.")
		c, err := Canonical(h)
		if err != nil {
			t.Fatalf("accepted %q whose host does not canonicalise: %v", entry, err)
		}
		if !l.Match(c) && !l.Match("sub."+c) {
			t.Fatalf("accepted %q but it matches neither %q nor its subdomains", entry, c)
		}
	})
}
