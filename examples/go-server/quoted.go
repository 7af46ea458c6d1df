package main

import "strings"

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
