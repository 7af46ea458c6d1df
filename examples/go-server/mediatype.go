// Media types: the batch request's Content-Type with its boundary parameter (section 3.1.1)
// and the Accept field that chooses the batch representation (section 6.1).
package main

import (
	"strconv"
	"strings"
)

// mediaType is a parsed media type: type/subtype in lower case and its parameters in order,
// with lower-case names and unquoted values.
type mediaType struct {
	typ    string
	params [][2]string
}

// parseMediaType parses `type "/" subtype parameters` (RFC 9110 §8.3.1). ok is false when the
// value does not follow the grammar; the type is still set when only the parameters are bad.
func parseMediaType(v string) (mediaType, bool) {
	v = trimOWS(v)
	if t, after, found := leadingTypeSubtype(v); found && after != "" && after[0] != ';' {
		// The subtype is a token: what follows it other than OWS and ";" breaks `parameters`
		// (an RFC 822 comment, as in "multipart/mixed (batch); boundary=b", among them), so
		// the value names that type with parameters that do not parse (MB-WIRE-4).
		return mediaType{typ: strings.ToLower(t)}, false
	}
	semi := strings.IndexByte(v, ';')
	head := v
	rest := ""
	if semi >= 0 {
		head, rest = trimOWS(v[:semi]), v[semi:]
	}
	slash := strings.IndexByte(head, '/')
	if slash < 0 || !isToken(head[:slash]) || !isToken(head[slash+1:]) {
		return mediaType{}, false
	}
	mt := mediaType{typ: strings.ToLower(head)}
	params, ok := parseParameters(rest)
	mt.params = params
	return mt, ok
}

// parseParameters parses `*( OWS ";" OWS [ name "=" ( token / quoted-string ) ] )`.
func parseParameters(s string) ([][2]string, bool) {
	var out [][2]string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return out, true
		}
		if s[i] != ';' {
			return out, false
		}
		i++
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) || s[i] == ';' {
			continue
		}
		start := i
		for i < len(s) && isTchar(s[i]) {
			i++
		}
		name := strings.ToLower(s[start:i])
		if name == "" || i == len(s) || s[i] != '=' {
			return out, false
		}
		i++
		var value string
		if i < len(s) && s[i] == '"' {
			var b strings.Builder
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '"' {
					closed = true
					i++
					break
				}
				if c == '\\' && i+1 < len(s) {
					i++
					c = s[i]
				}
				b.WriteByte(c)
				i++
			}
			if !closed {
				return out, false
			}
			value = b.String()
		} else {
			start = i
			for i < len(s) && isTchar(s[i]) {
				i++
			}
			value = s[start:i]
		}
		out = append(out, [2]string{name, value})
	}
}

// boundaryOf returns the boundary, or why it is unacceptable.
// MB-WIRE-4: "answer 400 to a batch request whose boundary parameter is missing, empty,
// repeated, longer than 70 characters, or contains a character outside bchars".
func boundaryOf(mt mediaType) (string, string) {
	var found []string
	for _, p := range mt.params {
		if p[0] == "boundary" {
			found = append(found, p[1])
		}
	}
	switch {
	case len(found) == 0:
		return "", "the Content-Type has no boundary parameter"
	case len(found) > 1:
		return "", "the Content-Type has more than one boundary parameter"
	}
	b := found[0]
	switch {
	case b == "":
		return "", "the boundary is empty"
	case len(b) > 70:
		return "", "the boundary has " + strconv.Itoa(len(b)) + " characters, more than 70"
	case b[len(b)-1] == ' ':
		return "", "the boundary ends in a space"
	}
	for i := 0; i < len(b); i++ {
		if !isBchar(b[i]) {
			return "", "the boundary holds " + strconv.QuoteRune(rune(b[i])) + ", which is not a bchar"
		}
	}
	return b, ""
}

// acceptRange is one member of an Accept field.
type acceptRange struct {
	typ string // "*/*", "type/*" or "type/subtype", lower case
	q   float64
}

// parseAccept parses an Accept field value leniently: members it cannot read are skipped.
func parseAccept(values []string) []acceptRange {
	var out []acceptRange
	for _, v := range values {
		// A comma inside a parameter's quoted-string separates no member (RFC 9110 §5.6.4).
		for _, member := range splitOutsideQuotes(v) {
			member = trimOWS(member)
			if member == "" {
				continue
			}
			mt, ok := parseMediaType(member)
			if !ok {
				continue
			}
			r := acceptRange{typ: mt.typ, q: 1}
			for _, p := range mt.params {
				if p[0] == "q" {
					if q, err := strconv.ParseFloat(p[1], 64); err == nil && q >= 0 && q <= 1 {
						r.q = q
					}
				}
			}
			out = append(out, r)
		}
	}
	return out
}

// quality returns the quality the ranges give media type t: that of the most specific range
// that matches it (RFC 9110 §12.5.1), or 0 when none does.
func quality(ranges []acceptRange, t string) float64 {
	best, spec := 0.0, -1
	sub := t[:strings.IndexByte(t, '/')] + "/*"
	for _, r := range ranges {
		s := -1
		switch r.typ {
		case t:
			s = 2
		case sub:
			s = 1
		case "*/*":
			s = 0
		}
		if s > spec {
			best, spec = r.q, s
		}
	}
	return best
}

// negotiate picks one of offers (the first is the default) for the Accept values, or "" when
// the field admits none. MB-MULTI-1: multipart/mixed "when Accept is absent or gives
// multipart/mixed a quality value at least as high as any other representation".
func negotiate(accept []string, offers []string) string {
	if len(accept) == 0 {
		return offers[0]
	}
	ranges := parseAccept(weighedOnly(accept))
	if len(ranges) == 0 {
		return offers[0]
	}
	choice, best := "", 0.0
	for _, o := range offers {
		if q := quality(ranges, o); q > best {
			choice, best = o, q
		}
	}
	return choice
}

// leadingTypeSubtype reads `token "/" token` at the start of v: the type/subtype and what
// follows it with its leading OWS removed; found is false when v does not begin so.
func leadingTypeSubtype(v string) (string, string, bool) {
	i := 0
	for i < len(v) && isTchar(v[i]) {
		i++
	}
	if i == 0 || i == len(v) || v[i] != '/' {
		return "", "", false
	}
	j := i + 1
	for j < len(v) && isTchar(v[j]) {
		j++
	}
	if j == i+1 {
		return "", "", false
	}
	return v[:j], strings.TrimLeft(v[j:], " \t"), true
}

// weighedOnly returns the Accept values without their members whose weight is no qvalue:
// spec 6.1 makes such a member one that does not follow the grammar, skipped like any other.
func weighedOnly(values []string) []string {
	var out []string
	for _, v := range values {
		var kept []string
		for _, member := range splitOutsideQuotes(v) {
			if mt, ok := parseMediaType(trimOWS(member)); ok && !weighsByQvalue(mt.params) {
				continue
			}
			kept = append(kept, member)
		}
		out = append(out, strings.Join(kept, ","))
	}
	return out
}

// isQvalue reports whether s is RFC 9110 §12.4.2's qvalue:
// "0" [ "." 0*3DIGIT ] or "1" [ "." 0*3("0") ].
func isQvalue(s string) bool {
	if s == "" || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return false
	}
	if len(s) == 1 {
		return true
	}
	if s[1] != '.' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || (s[0] == '1' && s[i] != '0') {
			return false
		}
	}
	return true
}

// weighsByQvalue reports whether every weight among params is a qvalue.
func weighsByQvalue(params [][2]string) bool {
	for _, p := range params {
		if p[0] == "q" && !isQvalue(p[1]) {
			return false
		}
	}
	return true
}
