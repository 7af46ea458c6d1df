// Character classes of RFC 9110 and RFC 2046 that the envelope parser and the part validator
// share: token characters, field-value octets and boundary characters.
package main

// isTchar reports whether c may appear in a token (RFC 9110 §5.6.2):
//
//	tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
//	        "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// isToken reports whether s is a non-empty token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return true
}

// isFieldValueOctet reports whether c may appear inside a field value (RFC 9110 §5.5):
// VCHAR, obs-text, SP and HTAB.
func isFieldValueOctet(c byte) bool {
	return c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7e) || c >= 0x80
}

// isBchar reports whether c is one of RFC 2046's bchars:
//
//	bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." /
//	                 "/" / ":" / "=" / "?"
//	bchars := bcharsnospace / " "
func isBchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '\'', '(', ')', '+', '_', ',', '-', '.', '/', ':', '=', '?', ' ':
		return true
	}
	return false
}

// trimOWS removes optional whitespace (SP, HTAB) from both ends (RFC 9110 §5.6.3).
func trimOWS(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return s[i:j]
}
