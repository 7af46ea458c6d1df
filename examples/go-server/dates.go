// HTTP-dates in If-Modified-Since and If-Unmodified-Since, read as RFC 9110 §5.6.7 reads them.
package main

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The three HTTP-date forms of RFC 9110 §5.6.7, matched whole and case-sensitively ("HTTP-date
// is case sensitive"): IMF-fixdate, rfc850-date and asctime-date. net/http's ParseTime is laxer
// (month names in any case, any zone name in the rfc850 form, a one-digit asctime day) and
// reads a two-digit year by a fixed pivot (69 and above in the 1900s).
var (
	imfFixdate  = regexp.MustCompile(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT$`)
	rfc850Date  = regexp.MustCompile(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), ([0-9]{2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT$`)
	asctimeDate = regexp.MustCompile(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([0-9]{2}| [0-9]) ([0-9]{2}):([0-9]{2}):([0-9]{2}) ([0-9]{4})$`)
)

const monthNames = "JanFebMarAprMayJunJulAugSepOctNovDec"

// fiftyYears is RFC 9110 §5.6.7's "more than 50 years", in days of the mean Gregorian year.
const fiftyYears = time.Duration(50*365.2425*24) * time.Hour

// parseHTTPDate reads an HTTP-date; ok is false for any other value. An rfc850-date's two-digit
// year "that appears to be more than 50 years in the future" is "the most recent year in the
// past that had the same last two digits" (RFC 9110 §5.6.7), judged against now.
func parseHTTPDate(v string, now time.Time) (time.Time, bool) {
	v = trimOWS(v)
	num := func(s string) int { n, _ := strconv.Atoi(strings.TrimSpace(s)); return n }
	month := func(s string) int { return strings.Index(monthNames, s)/3 + 1 }
	var day, mon, year, hh, mm, ss int
	if m := imfFixdate.FindStringSubmatch(v); m != nil {
		day, mon, year, hh, mm, ss = num(m[1]), month(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6])
	} else if m := rfc850Date.FindStringSubmatch(v); m != nil {
		day, mon, hh, mm, ss = num(m[1]), month(m[2]), num(m[4]), num(m[5]), num(m[6])
		year = now.UTC().Year()/100*100 + num(m[3])
		t := time.Date(year, time.Month(mon), day, hh, mm, ss, 0, time.UTC)
		if t.After(now.Add(fiftyYears)) {
			year -= 100
		} else if t.Before(now.Add(-fiftyYears)) {
			year += 100
		}
	} else if m := asctimeDate.FindStringSubmatch(v); m != nil {
		mon, day, hh, mm, ss, year = month(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6])
	} else {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(mon), day, hh, mm, ss, 0, time.UTC)
	if t.Day() != day || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, false // a day the month does not have, or no time of day
	}
	return t, true
}

// readDates hands h the requests to the collections and their members (the resources that
// evaluate preconditions) with each If-Modified-Since and If-Unmodified-Since line read as an
// HTTP-date: a valid one rewritten as the IMF-fixdate of its time, which precondition's
// http.ParseTime reads exactly, and any other value (a field on several lines among them, a list
// of dates) marked so that ParseTime refuses it too,
// since RFC 9110 §13.1.3 and §13.1.4 have a recipient ignore a field that "is not a valid
// HTTP-date". Other resources (the mirror) get the request as received.
func readDates(store *Store, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		col, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if _, ok := store.list(col); ok {
			r = withDatesRead(r, time.Now())
		}
		h.ServeHTTP(w, r)
	})
}

func withDatesRead(r *http.Request, now time.Time) *http.Request {
	var out *http.Request
	for _, name := range []string{"If-Modified-Since", "If-Unmodified-Since"} {
		values := r.Header.Values(name)
		if len(values) == 0 {
			continue
		}
		if out == nil {
			out = r.Clone(r.Context())
		}
		// Field lines of one name are one list (RFC 9110 §5.3): two lines are a list of dates,
		// no HTTP-date, and ignored whichever line alone would decide.
		if len(values) > 1 {
			out.Header[http.CanonicalHeaderKey(name)] = []string{"not an HTTP-date: a list of dates"}
			continue
		}
		read := make([]string, len(values))
		for i, v := range values {
			if t, ok := parseHTTPDate(v, now); ok {
				read[i] = t.Format(http.TimeFormat)
			} else {
				read[i] = "not an HTTP-date: " + v
			}
		}
		out.Header[http.CanonicalHeaderKey(name)] = read
	}
	if out == nil {
		return r
	}
	return out
}
