package main

import (
	"context"
	"net/http"
	"strings"
)

// unquoteString gives the value a quoted-string stands for (RFC 9110 section 5.6.4): the
// surrounding quotes dropped and each quoted-pair read as the octet after its backslash, so
// "st\op" is stop. A value that is not a whole quoted-string is returned unchanged.
func unquoteString(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v)-1 {
			i++
			c = v[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}

// originForm gives the origin-form (path and query) of a request target as received: an
// absolute-form target (RFC 9112 section 3.2.2) loses its scheme and authority, and one with an
// empty path gets "/" (MB-TEST-2 reports "the origin-form request target (path and query)").
func originForm(target string) string {
	if strings.HasPrefix(target, "/") || target == "*" {
		return target
	}
	scheme := strings.Index(target, "://")
	if scheme < 0 {
		return target
	}
	rest := target[scheme+3:]
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	if !strings.HasPrefix(rest, "/") {
		rest = "/" + rest
	}
	return rest
}

// originFormTarget hands h the request with its target in origin-form, so that the mirror
// reports the path and query of an absolute-form request (MB-TEST-2). The field lines of a
// request received alone are looked up by the target as received, so they are found first.
func originFormTarget(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		target := originForm(r.RequestURI)
		if target != r.RequestURI {
			ctx := r.Context()
			if _, ok := orderedFields(r); !ok {
				if f, ok := receivedFields(ctx, r.Method, r.RequestURI); ok {
					ctx = context.WithValue(ctx, fieldsKey{}, f)
				}
			}
			r = r.WithContext(ctx)
			r.RequestURI = target
		}
		h(w, r)
	}
}
