// Targets: the URI reference inside a request part's Content-Id, its resolution against the
// batch request's target URI (RFC 3986 §5.2, MB-PART-5) and the same-origin rule (MB-SUB-2).
// The reference is taken as the octets between "<" and ">", exactly (MB-PART-6): nothing here
// changes case, unfolds or strips anything.
package main

import (
	"strconv"
	"strings"
)

// uriRef is a URI reference split by the regular expression of RFC 3986 Appendix B.
type uriRef struct {
	scheme, authority, path, query, fragment       string
	hasScheme, hasAuthority, hasQuery, hasFragment bool
}

// isURIChar reports whether c may appear in a URI reference outside percent-encoding:
// unreserved, gen-delims and sub-delims (RFC 3986 §2).
func isURIChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// parseURIReference checks s against URI-reference (RFC 3986 §4.1) and splits it.
func parseURIReference(s string) (uriRef, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return uriRef{}, false
			}
			i += 2
			continue
		}
		if !isURIChar(c) {
			return uriRef{}, false
		}
	}
	var r uriRef
	rest := s
	if i := strings.IndexAny(rest, ":/?#"); i > 0 && rest[i] == ':' {
		r.scheme, r.hasScheme, rest = rest[:i], true, rest[i+1:]
		if !isScheme(r.scheme) {
			return uriRef{}, false
		}
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		r.fragment, r.hasFragment, rest = rest[i+1:], true, rest[:i]
		if strings.ContainsAny(r.fragment, "#[]") {
			return uriRef{}, false
		}
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		r.query, r.hasQuery, rest = rest[i+1:], true, rest[:i]
		if strings.ContainsAny(r.query, "[]") {
			return uriRef{}, false
		}
	}
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			i = len(rest)
		}
		r.authority, r.hasAuthority, rest = rest[:i], true, rest[i:]
	}
	r.path = rest
	if strings.ContainsAny(r.path, "[]") {
		return uriRef{}, false
	}
	if !r.hasScheme && !r.hasAuthority {
		// path-noscheme: the first segment of a relative path has no colon.
		first := r.path
		if i := strings.IndexByte(first, '/'); i >= 0 {
			first = first[:i]
		}
		if strings.IndexByte(first, ':') >= 0 {
			return uriRef{}, false
		}
	}
	return r, true
}

func isScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// resolve applies the algorithm of RFC 3986 §5.2.2 (strict) to reference r against a base
// with scheme "http", the given authority, path and query.
func resolve(r uriRef, baseAuthority, basePath, baseQuery string) uriRef {
	var t uriRef
	switch {
	case r.hasScheme:
		t = r
		t.path = removeDotSegments(r.path)
	case r.hasAuthority:
		t = r
		t.scheme, t.hasScheme = "http", true
		t.path = removeDotSegments(r.path)
	default:
		t.scheme, t.hasScheme = "http", true
		t.authority, t.hasAuthority = baseAuthority, true
		switch {
		case r.path == "":
			t.path = basePath
			if r.hasQuery {
				t.query, t.hasQuery = r.query, true
			} else {
				t.query, t.hasQuery = baseQuery, baseQuery != ""
			}
		case strings.HasPrefix(r.path, "/"):
			t.path = removeDotSegments(r.path)
			t.query, t.hasQuery = r.query, r.hasQuery
		default:
			t.path = removeDotSegments(merge(basePath, r.path))
			t.query, t.hasQuery = r.query, r.hasQuery
		}
	}
	t.fragment, t.hasFragment = r.fragment, r.hasFragment
	return t
}

// merge implements RFC 3986 §5.2.3 for a base that has an authority.
func merge(basePath, refPath string) string {
	if basePath == "" {
		return "/" + refPath
	}
	return basePath[:strings.LastIndexByte(basePath, '/')+1] + refPath
}

// removeDotSegments implements RFC 3986 §5.2.4.
func removeDotSegments(in string) string {
	var out []string // output segments, each with its leading "/" where it had one
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			i := 0
			if in[0] == '/' {
				i = 1
			}
			j := strings.IndexByte(in[i:], '/')
			if j < 0 {
				j = len(in)
			} else {
				j += i
			}
			out = append(out, in[:j])
			in = in[j:]
		}
	}
	return strings.Join(out, "")
}

// sameOrigin reports whether an absolute target's scheme and authority are the batch
// request's own: scheme and host compare case-insensitively and an absent port is 80
// (RFC 3986 §6.2.2, §6.2.3). An authority with userinfo never matches (MB-SUB-2).
func sameOrigin(t uriRef, requestHost string) bool {
	if !strings.EqualFold(t.scheme, "http") || strings.IndexByte(t.authority, '@') >= 0 {
		return false
	}
	h1, p1 := splitHostPort(t.authority)
	h2, p2 := splitHostPort(requestHost)
	return strings.EqualFold(h1, h2) && p1 == p2
}

func splitHostPort(a string) (string, string) {
	host, port := a, ""
	if i := strings.LastIndexByte(a, ':'); i >= 0 && !strings.Contains(a[i:], "]") {
		host, port = a[:i], a[i+1:]
	}
	// A port compares as a decimal number, and an empty port is the default (section 8.3).
	// RFC 3986 §3.2.3: port = *DIGIT, so a sign that strconv.Atoi takes leaves it unmatched.
	n, err := strconv.Atoi(port)
	switch {
	case port == "":
		n = 80
	case err != nil || n < 0 || strings.Trim(port, "0123456789") != "":
		return host, port
	}
	return host, strconv.Itoa(n)
}

// originForm returns the resolved target's path and query as a request target.
func (t uriRef) originForm() string {
	p := t.path
	if p == "" {
		p = "/"
	}
	if t.hasQuery {
		p += "?" + t.query
	}
	return p
}
