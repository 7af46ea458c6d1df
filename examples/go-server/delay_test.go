package main

import (
	"net/http"
	"testing"
)

// A count above the longest delay is a 4xx however large, including counts whose nanoseconds
// pass 2^63 and would wrap to a negative wait if converted unchecked (MB-TEST-7).
func TestDelayBeyondLongestRefused(t *testing.T) {
	srv := newTestServer(t)
	for _, ms := range []string{"10001", "1000000000000", "10000000000000", "4611686018427387904"} {
		if code, _ := send(t, srv, http.MethodGet, "/sleep/"+ms, ""); code < 400 || code > 499 {
			t.Errorf("GET /sleep/%s: %d, want a 4xx", ms, code)
		}
	}
}
