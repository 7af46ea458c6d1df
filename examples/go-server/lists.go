package main

import "strings"

// unsupportedCoding is the first content coding, of every member of every Content-Encoding
// field line, that this server does not decode, or "" when there is none. Content-Encoding is
// a list (RFC 9110 section 8.4): "identity, gzip" and a second line of "gzip" are both gzip,
// and empty list elements are ignored (section 5.6.1). MB-INTER-6: such a batch is answered 415.
func unsupportedCoding(lines []string) string {
	for _, line := range lines {
		for _, member := range strings.Split(line, ",") {
			member = trimOWS(member)
			if member != "" && !strings.EqualFold(member, "identity") {
				return member
			}
		}
	}
	return ""
}

// splitOutsideQuotes splits a field value at the commas that are not inside a quoted-string
// (RFC 9110 section 5.6.4), so a comma in a preference's quoted value does not start another
// preference (MB-PROC-13 reads Prefer by RFC 7240's grammar).
func splitOutsideQuotes(v string) []string {
	var out []string
	start, quoted, escaped := 0, false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}
