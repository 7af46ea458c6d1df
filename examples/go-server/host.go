package main

import (
	"net"
	"strings"
)

// validHost reports whether a request's Host is uri-host [ ":" port ] (RFC 9110 section 7.2)
// with a host that is not empty: an http URI with an empty host is invalid (section 4.2.1), and
// the batch's target URI, which part targets resolve against (MB-PART-5), is built from it.
func validHost(host string) bool {
	name, port := host, ""
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return false
		}
		name, port = host[:end+1], host[end+1:]
		if port != "" && port[0] != ':' {
			return false
		}
		if !ipLiteral(name[1:end]) {
			return false
		}
	} else if i := strings.IndexByte(host, ':'); i >= 0 {
		name, port = host[:i], host[i:]
		if !regName(name) {
			return false
		}
	} else if !regName(name) {
		return false
	}
	if port != "" {
		for _, c := range port[1:] {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// regName is a non-empty reg-name: unreserved, pct-encoded and sub-delims (RFC 3986 3.2.2).
func regName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// ipLiteral is what RFC 3986 3.2.2 allows inside the brackets: an IPv6address, or an IPvFuture
// ("v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ), the "v" in either case).
func ipLiteral(s string) bool {
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		for i := dot + 1; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
				strings.IndexByte("-._~!$&'()*+,;=:", c) >= 0) {
				return false
			}
		}
		return true
	}
	return strings.IndexByte(s, ':') >= 0 && net.ParseIP(s) != nil
}
