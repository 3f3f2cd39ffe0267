// Package brave searches the web through the Brave Search API, for users
// who have an API key: it builds the request and reads the JSON answer
// into titles, URLs and snippets.
package brave

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Endpoint is the Brave Search API's web search.
const Endpoint = "https://api.search.brave.com/res/v1/web/search"

// Result is one search hit.
type Result struct {
	Title   string
	URL     string
	Snippet string
}

var (
	// ErrRateLimited is HTTP 429: the key's rate or monthly quota is spent.
	ErrRateLimited = errors.New("the Brave Search API refused the search: rate limit or quota reached")
	// ErrKeyRefused is HTTP 401 or 403: the key is wrong or not allowed.
	ErrKeyRefused = errors.New("the Brave Search API refused the API key")
)

// NewRequest builds the search request for query, asking for count results.
func NewRequest(ctx context.Context, endpoint, key, query string, count int) (*http.Request, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("count", strconv.Itoa(count))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", key)
	return req, nil
}

// answer is the part of the API's answer that is read.
type answer struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

// Parse reads an answer served with HTTP status code status.
func Parse(status int, body []byte) ([]Result, error) {
	switch {
	case status == http.StatusTooManyRequests:
		return nil, ErrRateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return nil, ErrKeyRefused
	case status != http.StatusOK:
		return nil, fmt.Errorf("the Brave Search API answered HTTP %d", status)
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("the Brave Search API's answer could not be read: %v", err)
	}
	var out []Result
	for _, r := range a.Web.Results {
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		out = append(out, Result{Title: plain(r.Title), URL: r.URL, Snippet: plain(r.Description)})
	}
	return out, nil
}

// plain drops the tags the API puts in its text (<strong> around matches)
// and decodes entities.
func plain(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
}
