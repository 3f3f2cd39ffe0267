package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
)

// Tests reach local servers under other names, and trust their
// certificates; the guard itself is never replaced.

// RewriteDial makes the client dial to(addr) instead of addr, while the
// guard still judges the host the URL names.
func (c *Client) RewriteDial(to func(addr string) string) { c.rewrite = to }

// TrustTLS makes the client trust the certificates in pool.
func (c *Client) TrustTLS(pool *x509.CertPool) {
	c.http.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool}
}
