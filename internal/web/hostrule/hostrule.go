// Package hostrule judges web hosts: it puts a URL's host into the one
// form every rule is matched against (lowercase, no trailing dot, IDNA
// ASCII), and parses the user's host lists: the hosts fetched without
// asking ("example.com", "*.example.com") and the private hosts and
// networks the user lets web requests reach ("localhost", "10.0.0.0/8").
package hostrule

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Canonical returns the form of host that rules are matched against:
// lowercase, without a trailing dot, internationalised names in their
// ASCII (punycode) form, IP addresses in their standard notation. host is
// a URL's host without the port or the brackets of an IPv6 literal
// (url.URL.Hostname). A name that is neither a valid host name nor an IP
// address is an error: "0x7f.1" or "127.1" (which some resolvers read as
// loopback) are refused here, before anything is looked up.
func Canonical(host string) (string, error) {
	if host == "" {
		return "", errors.New("the URL has no host")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return "", fmt.Errorf("%q: an IPv6 address with a zone is not a web host", host)
		}
		return ip.Unmap().String(), nil
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	ascii, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid host name: %v", host, err)
	}
	if ascii == "" || strings.HasPrefix(ascii, ".") || strings.HasSuffix(ascii, ".") || strings.Contains(ascii, "..") {
		return "", fmt.Errorf("%q is not a valid host name", host)
	}
	labels := strings.Split(ascii, ".")
	if numeric(labels[len(labels)-1]) {
		// WHATWG URL parsing reads such a host as an IPv4 address in some
		// shorthand (octal, hex, fewer parts); it is not a valid one.
		return "", fmt.Errorf("%q looks like an IP address but is not one in standard notation", host)
	}
	for _, l := range labels {
		if len(l) > 63 {
			return "", fmt.Errorf("%q has a label longer than 63 characters", host)
		}
	}
	return ascii, nil
}

// numeric reports whether a label is a number as an IPv4 parser would read
// it: decimal digits, or 0x followed by hex digits.
func numeric(label string) bool {
	if label == "" {
		return false
	}
	digits := "0123456789"
	if rest, ok := strings.CutPrefix(label, "0x"); ok {
		label, digits = rest, "0123456789abcdef"
		if label == "" {
			return true
		}
	}
	for _, r := range label {
		if !strings.ContainsRune(digits, r) {
			return false
		}
	}
	return true
}

// Display is host as people read it: an internationalised name in Unicode.
// It is for showing only; rules match the canonical ASCII form.
func Display(host string) string {
	u, err := idna.Display.ToUnicode(host)
	if err != nil {
		return host
	}
	return u
}

// SingleLabel reports whether a canonical host name has no dot (and is
// not an IP address): "localhost", "intranet". Such names resolve through
// local search domains, so they are refused unless the user lists them.
func SingleLabel(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	return !strings.Contains(host, ".")
}

// HostList is a list of host rules: "example.com" matches exactly that
// host, "*.example.com" matches its subdomains at any depth but not
// example.com itself. The zero HostList matches nothing.
type HostList struct {
	exact    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
	entries  []string
}

// ParseHostList reads host rules. An entry that is not a host name (a URL,
// a port, a path, a wildcard other than a leading "*."), or a wildcard over
// a public suffix ("*.com", "*.co.uk", "*.github.io"), is an error that
// names it.
func ParseHostList(entries []string) (HostList, error) {
	var l HostList
	for _, e := range entries {
		if err := l.add(e); err != nil {
			return HostList{}, err
		}
	}
	return l, nil
}

func (l *HostList) add(entry string) error {
	e := strings.TrimSpace(entry)
	if e == "" {
		return fmt.Errorf("an empty entry is not a host")
	}
	if strings.ContainsAny(e, "/:@?#[] ") {
		return fmt.Errorf("%q is not a host name: give the host alone, like example.com or *.example.com (no scheme, port or path)", entry)
	}
	rest, wild := strings.CutPrefix(e, "*.")
	if strings.Contains(rest, "*") {
		return fmt.Errorf("%q: a wildcard is allowed only as a leading \"*.\" (*.example.com)", entry)
	}
	host, err := Canonical(rest)
	if err != nil {
		return fmt.Errorf("%q: %v", entry, err)
	}
	if wild {
		if _, err := netip.ParseAddr(host); err == nil {
			return fmt.Errorf("%q: a wildcard cannot cover an IP address", entry)
		}
		if suffix, _ := publicSuffix(host); suffix == host {
			return fmt.Errorf("%q is a wildcard over the public suffix %s, which would match every site under it; name the sites instead", entry, host)
		}
		l.suffixes = append(l.suffixes, "."+host)
	} else {
		if l.exact == nil {
			l.exact = map[string]bool{}
		}
		l.exact[host] = true
	}
	l.entries = append(l.entries, e)
	return nil
}

// publicSuffix is publicsuffix.PublicSuffix, for a canonical host.
func publicSuffix(host string) (string, bool) { return publicsuffix.PublicSuffix(host) }

// Match reports whether a canonical host is covered by the list.
func (l HostList) Match(host string) bool {
	if l.exact[host] {
		return true
	}
	for _, s := range l.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// Empty reports whether the list has no rule.
func (l HostList) Empty() bool { return len(l.entries) == 0 }

// Entries are the rules as the user wrote them (trimmed).
func (l HostList) Entries() []string { return append([]string(nil), l.entries...) }

// PrivateList is what the user lets web requests reach although it is on
// loopback or a private network: host names (matched like a HostList) and
// networks (CIDRs, or single addresses).
type PrivateList struct {
	Names    HostList
	Prefixes []netip.Prefix
}

// ParsePrivateList reads private-host entries: "localhost", "dev.lan",
// "*.corp.example", "127.0.0.1", "::1", "10.0.0.0/8". A malformed entry is
// an error that names it.
func ParsePrivateList(entries []string) (PrivateList, error) {
	var p PrivateList
	var names []string
	for _, e := range entries {
		t := strings.TrimSpace(e)
		if strings.Contains(t, "/") {
			pre, err := netip.ParsePrefix(t)
			if err != nil {
				return PrivateList{}, fmt.Errorf("%q is neither a host name nor a network in CIDR notation (10.0.0.0/8): %v", e, err)
			}
			p.Prefixes = append(p.Prefixes, pre.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(strings.Trim(t, "[]")); err == nil {
			if ip.Zone() != "" {
				return PrivateList{}, fmt.Errorf("%q: an IPv6 address with a zone is not a web host", e)
			}
			ip = ip.Unmap()
			p.Prefixes = append(p.Prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		names = append(names, t)
	}
	var err error
	if p.Names, err = ParseHostList(names); err != nil {
		return PrivateList{}, err
	}
	return p, nil
}

// Listed reports whether a canonical host is one the user listed: by name,
// or an IP address inside a listed network. A listed host is fetched as
// given (http stays http) and may be a single-label name.
func (p PrivateList) Listed(host string) bool {
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.Contains(ip)
	}
	return p.Names.Match(host)
}

// Contains reports whether ip lies in a listed network.
func (p PrivateList) Contains(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, pre := range p.Prefixes {
		if pre.Contains(ip) {
			return true
		}
	}
	return false
}

// Empty reports whether nothing private is allowed.
func (p PrivateList) Empty() bool { return p.Names.Empty() && len(p.Prefixes) == 0 }
