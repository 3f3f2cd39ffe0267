package fetch

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"

	"github.com/tether-dev/tether/internal/web/hostrule"
)

// BlockedError is a connection the guard refused: the address a host
// resolved to is one web requests may not reach.
type BlockedError struct {
	Host string     // the host as the URL names it
	IP   netip.Addr // the address it resolved to
	Kind string     // "loopback", "private", …
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("dial %s: %s, which web requests may not reach", e.Host, e.Where())
}

// Where says where the host led: "127.0.0.1 is a loopback address", or
// "db.example resolves to 10.0.0.5, a private address".
func (e *BlockedError) Where() string {
	if e.Host == e.IP.String() || e.Host == e.IP.Unmap().String() {
		return fmt.Sprintf("%s is a %s address", e.Host, e.Kind)
	}
	return fmt.Sprintf("%s resolves to %s, a %s address", e.Host, e.IP, e.Kind)
}

// guard decides, at dial time and on the address actually dialed, whether
// a connection may be made. Checking the dialed address (not the one a
// first lookup returned) is what defeats DNS rebinding.
type guard struct {
	rules   *ssrf.Guardian
	private hostrule.PrivateList
}

// newGuard refuses every special-purpose address (loopback, private,
// link-local, unique-local, CGNAT, multicast, unspecified, documentation
// and reserved ranges, in IPv4, IPv6 and IPv4-mapped form) except in the
// networks the user listed. Any port may be used.
func newGuard(private hostrule.PrivateList) *guard {
	var v4, v6 []netip.Prefix
	for _, p := range private.Prefixes {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	return &guard{
		rules:   ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...)),
		private: private,
	}
}

// control is the net.Dialer.Control for a connection to host (canonical,
// as the URL names it). A host the user listed by name may reach private
// addresses, though never a multicast or unspecified one.
func (g *guard) control(host string) func(network, address string, _ syscall.RawConn) error {
	named := g.private.Names.Match(host)
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dial %s: unexpected address %q", host, address)
		}
		ip := ap.Addr()
		if named && !ip.Unmap().IsMulticast() && !ip.Unmap().IsUnspecified() {
			return nil
		}
		if err := g.rules.Safe(network, address, nil); err != nil {
			return &BlockedError{Host: host, IP: ip, Kind: addressKind(ip)}
		}
		return nil
	}
}

// loopbackName reports a name that always means this machine: localhost
// and the names under it (RFC 6761), which resolvers answer with a
// loopback address without asking DNS.
func loopbackName(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// refusesLiteral is the guard's verdict on a host known without a lookup:
// an IP address, or a name under localhost. It returns the *BlockedError
// a dial would meet, or nil when the host is a name to resolve or an
// address that may be reached.
func (g *guard) refusesLiteral(host string) error {
	if loopbackName(host) {
		return &BlockedError{Host: host, IP: netip.AddrFrom4([4]byte{127, 0, 0, 1}), Kind: "loopback"}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil
	}
	network := "tcp4"
	if ip.Is6() && !ip.Is4In6() {
		network = "tcp6"
	}
	if g.rules.Safe(network, netip.AddrPortFrom(ip, 443).String(), nil) != nil {
		return &BlockedError{Host: host, IP: ip, Kind: addressKind(ip)}
	}
	return nil
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// addressKind names the kind of a refused address for a message.
func addressKind(ip netip.Addr) string {
	u := ip.Unmap()
	kind := ""
	switch {
	case u.IsLoopback():
		kind = "loopback"
	case u.IsUnspecified():
		kind = "unspecified"
	case u.IsLinkLocalUnicast():
		kind = "link-local"
	case u.IsMulticast():
		kind = "multicast"
	case u.Is6() && u.IsPrivate():
		kind = "unique-local"
	case u.IsPrivate():
		kind = "private"
	case cgnat.Contains(u):
		kind = "shared (CGNAT)"
	default:
		kind = "reserved or special-purpose"
	}
	if ip.Is4In6() {
		kind = "IPv4-mapped " + kind
	}
	return kind
}
