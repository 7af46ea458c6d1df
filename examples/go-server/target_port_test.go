package main

import "testing"

// A port is digits only (RFC 3986 §3.2.3): a sign strconv.Atoi accepts must not make a target
// the batch request's own origin.
func TestSameOriginPortIsDigitsOnly(t *testing.T) {
	cases := []struct {
		authority string
		same      bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1:08080", true},
		{"127.0.0.1:+8080", false},
		{"127.0.0.1:-8080", false},
		{"127.0.0.1:8080x", false},
	}
	for _, c := range cases {
		got := sameOrigin(uriRef{scheme: "http", authority: c.authority}, "127.0.0.1:8080")
		if got != c.same {
			t.Errorf("sameOrigin(%q) = %v, want %v", c.authority, got, c.same)
		}
	}
}
