package tool

import (
	"fmt"
	"slices"
	"testing"
)

func TestRequestsRememberUntrustedSources(t *testing.T) {
	r := NewRequests()
	if got := r.Untrusted("a"); got != nil {
		t.Fatalf("fresh request: %v", got)
	}
	r.MarkUntrusted("a", "https://example.com/")
	r.MarkUntrusted("a", "https://example.com/")
	r.MarkUntrusted("a", "search: go generics")
	if got := r.Untrusted("a"); !slices.Equal(got, []string{"https://example.com/", "search: go generics"}) {
		t.Fatalf("a: %v", got)
	}
	if got := r.Untrusted("b"); got != nil {
		t.Fatalf("another request is marked: %v", got)
	}
	var none *Requests
	none.MarkUntrusted("a", "x")
	if none.Untrusted("a") != nil {
		t.Fatal("the nil Requests remembered something")
	}
}

func TestRequestsAreBounded(t *testing.T) {
	r := NewRequests()
	for i := range maxRequests + 10 {
		r.MarkUntrusted(fmt.Sprint(i), "s")
	}
	if len(r.m) != maxRequests || r.Untrusted("0") != nil || r.Untrusted(fmt.Sprint(maxRequests+9)) == nil {
		t.Fatalf("kept %d requests", len(r.m))
	}
	for i := range maxSources + 5 {
		r.MarkUntrusted("x", fmt.Sprint(i))
	}
	if n := len(r.Untrusted("x")); n != maxSources {
		t.Fatalf("kept %d sources", n)
	}
}
