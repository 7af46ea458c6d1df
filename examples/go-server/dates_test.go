package main

import (
	"testing"
	"time"
)

// RFC 9110 §5.6.7: the three forms are read, a two-digit year by the 50-year rule (not by
// net/http's fixed pivot), and anything else is no HTTP-date.
func TestHTTPDatesReadByRFC9110(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	at := func(y int) time.Time { return time.Date(y, 1, 15, 9, 30, 0, 0, time.UTC) }
	for v, want := range map[string]time.Time{
		"Thu, 15 Jan 2026 09:30:00 GMT":    at(2026),
		"Thursday, 15-Jan-26 09:30:00 GMT": at(2026),
		"Thu Jan 15 09:30:00 2026":         at(2026),
		"Thursday, 15-Jan-71 09:30:00 GMT": at(2071),
		"Thursday, 15-Jan-81 09:30:00 GMT": at(1981),
		"Sunday, 15-Jan-06 09:30:00 GMT":   at(2006),
		"Sun Nov  6 08:49:37 1994":         time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC),
	} {
		if got, ok := parseHTTPDate(v, now); !ok || !got.Equal(want) {
			t.Errorf("%q: got %v (%v), want %v", v, got, ok, want)
		}
	}
	for _, v := range []string{
		"2026-01-15", "2026-01-15T09:30:00Z", "Thu, 15 Jan 2026 09:30:00 +0000",
		"Thu, 15 Jan 2026 09:30:00 UTC", "Thu, 15 jan 2026 09:30:00 GMT", "Thu, 15 Jan 26 09:30:00 GMT",
		"15 Jan 2026 09:30:00 GMT", "Thursday, 15-Jan-26 09:30:00 PST", "Thu Jan 5 09:30:00 2026",
		"Thu, 15 Jan 2026 09:30:00 GMT, Thu, 15 Jan 2026 09:30:00 GMT",
	} {
		if _, ok := parseHTTPDate(v, now); ok {
			t.Errorf("%q read as an HTTP-date", v)
		}
	}
}
