// Preconditions (RFC 9110 §13.2.2), evaluated the same way for a standalone request and for a
// part, which is what the conditional profile asks (MB-PROC-9).
package main

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// etagList splits an If-Match or If-None-Match value into entity tags.
func etagList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			if t = trimOWS(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func opaque(tag string) string { return strings.TrimPrefix(tag, "W/") }

// star is whether a list is the field value "*": RFC 9110 writes If-Match and If-None-Match as
// "*" / #entity-tag, so a "*" among tags is no entity-tag and matches nothing (spec 7.6).
func star(tags []string) bool { return len(tags) == 1 && tags[0] == "*" }

// matchStrong is the strong comparison of RFC 9110 §8.8.3.2: neither tag may be weak.
func matchStrong(tags []string, current string) bool {
	if star(tags) {
		return true
	}
	for _, t := range tags {
		if !strings.HasPrefix(t, "W/") && !strings.HasPrefix(current, "W/") && t == current {
			return true
		}
	}
	return false
}

// matchWeak is the weak comparison: the opaque tags are equal.
func matchWeak(tags []string, current string) bool {
	if star(tags) {
		return true
	}
	for _, t := range tags {
		if opaque(t) == opaque(current) {
			return true
		}
	}
	return false
}

// precondition returns 304 or 412 when the request's preconditions say so, else 0. exists is
// whether the target has a current representation with the given validators.
func precondition(r *http.Request, etag string, modified time.Time, exists bool) int {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	if im := r.Header.Values("If-Match"); len(im) > 0 {
		if !exists || !matchStrong(etagList(im), etag) {
			return http.StatusPreconditionFailed
		}
	} else if v := r.Header.Get("If-Unmodified-Since"); v != "" && exists {
		if t, err := http.ParseTime(v); err == nil && modified.After(t) {
			return http.StatusPreconditionFailed
		}
	}
	if inm := r.Header.Values("If-None-Match"); len(inm) > 0 {
		if exists && matchWeak(etagList(inm), etag) {
			if get {
				return http.StatusNotModified
			}
			return http.StatusPreconditionFailed
		}
	} else if v := r.Header.Get("If-Modified-Since"); v != "" && exists && get {
		if t, err := http.ParseTime(v); err == nil && !modified.After(t) {
			return http.StatusNotModified
		}
	}
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }
