package main

// asciiEqualFold reports whether a and b are equal under US-ASCII case-insensitivity, the only
// case-insensitivity ABNF strings have (RFC 5234 section 2.3). strings.EqualFold folds Unicode
// as well, so it takes "ſtop" (U+017F, long s) for "stop", a value the spec does not recognise
// (MB-PROC-11, MB-PROC-13).
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
