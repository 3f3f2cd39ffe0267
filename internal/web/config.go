package web

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/web/brave"
	"github.com/tether-dev/tether/internal/web/ddg"
	"github.com/tether-dev/tether/internal/web/fetch"
	"github.com/tether-dev/tether/internal/web/hostrule"
	"github.com/tether-dev/tether/protocol"
)

// Defaults of the settings.
const (
	DefaultTimeout  = fetch.DefaultTimeout
	DefaultMaxBytes = fetch.DefaultMaxBytes
	// MaxMaxBytes bounds the body cap a user may set: a page is held in
	// memory whole.
	MaxMaxBytes = 256 << 20
)

// Settings are the web settings as the user gives them (initialize's
// settings, or the command line), before they are checked.
type Settings struct {
	AllowedHosts   []string
	PrivateHosts   []string
	SearchEndpoint string
	Timeout        time.Duration
	MaxBytes       int64
	BraveAPIKey    string
}

// FromProtocol takes the web settings out of initialize's settings.
func FromProtocol(p protocol.Settings) Settings {
	return Settings{
		AllowedHosts:   p.WebAllowedHosts,
		PrivateHosts:   p.WebPrivateHosts,
		SearchEndpoint: p.WebSearchEndpoint,
		Timeout:        time.Duration(p.WebTimeout) * time.Second,
		MaxBytes:       int64(p.WebMaxBytes),
		BraveAPIKey:    p.BraveAPIKey,
	}
}

// Config is the web settings, checked. The zero Config is the defaults:
// every host asks, nothing private is reachable, DuckDuckGo searches.
type Config struct {
	// Allowed are the hosts fetched without asking.
	Allowed hostrule.HostList
	// Private are the hosts and networks on loopback or private networks
	// that may be reached; they are fetched over http as given.
	Private hostrule.PrivateList
	// SearchEndpoint is the HTML search endpoint; empty: DuckDuckGo's.
	SearchEndpoint string
	// Timeout bounds one fetch or search; zero: DefaultTimeout.
	Timeout time.Duration
	// MaxBytes caps a response body; zero: DefaultMaxBytes.
	MaxBytes int64
	// BraveAPIKey, when set, makes searches go to the Brave Search API.
	BraveAPIKey string
	// BraveEndpoint is the Brave API's URL; empty: brave.Endpoint. It is
	// not a user setting.
	BraveEndpoint string
}

// FieldError is a setting that is not valid; Field is its name in
// initialize's settings.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// NewConfig checks the settings. A malformed value is a *FieldError that
// names the setting and the entry.
func NewConfig(s Settings) (Config, error) {
	var c Config
	var err error
	if c.Allowed, err = hostrule.ParseHostList(s.AllowedHosts); err != nil {
		return Config{}, &FieldError{"webAllowedHosts", err}
	}
	if c.Private, err = hostrule.ParsePrivateList(s.PrivateHosts); err != nil {
		return Config{}, &FieldError{"webPrivateHosts", err}
	}
	if e := strings.TrimSpace(s.SearchEndpoint); e != "" {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return Config{}, &FieldError{"webSearchEndpoint", fmt.Errorf("%q is not an http or https URL (without user info)", s.SearchEndpoint)}
		}
		c.SearchEndpoint = e
	}
	if s.Timeout < 0 {
		return Config{}, &FieldError{"webTimeout", fmt.Errorf("%v is negative; give a number of seconds, or leave it out for %s", s.Timeout, DefaultTimeout)}
	}
	c.Timeout = s.Timeout
	if s.MaxBytes < 0 || s.MaxBytes > MaxMaxBytes {
		return Config{}, &FieldError{"webMaxBytes", fmt.Errorf("%d is out of range: give a number of bytes up to %d, or leave it out for %d", s.MaxBytes, MaxMaxBytes, DefaultMaxBytes)}
	}
	c.MaxBytes = s.MaxBytes
	c.BraveAPIKey = strings.TrimSpace(s.BraveAPIKey)
	return c, nil
}

// FetchTimeout is the time limit of one fetch or search.
func (c *Config) FetchTimeout() time.Duration {
	if c == nil || c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// BodyCap is the most bytes read of one response.
func (c *Config) BodyCap() int64 {
	if c == nil || c.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return c.MaxBytes
}

// Engine names the search engine in use, for descriptions.
func (c *Config) Engine() string {
	if c != nil && c.BraveAPIKey != "" {
		return "the Brave Search API"
	}
	if c != nil && c.SearchEndpoint != "" {
		return "the configured search endpoint"
	}
	return "DuckDuckGo"
}

func (c *Config) searchEndpoint() string {
	if c.BraveAPIKey != "" {
		if c.BraveEndpoint != "" {
			return c.BraveEndpoint
		}
		return brave.Endpoint
	}
	if c.SearchEndpoint != "" {
		return c.SearchEndpoint
	}
	return ddg.Endpoint
}
