package main

import "testing"

// A "*" is the whole If-Match or If-None-Match value or no member at all (RFC 9110 §13.1.1,
// §13.1.2: "*" / #entity-tag): among tags it matches nothing (spec 7.6).
func TestStarAmongTagsMatchesNothing(t *testing.T) {
	current := `"v1"`
	cases := []struct {
		tags []string
		want bool
	}{
		{[]string{"*"}, true},
		{[]string{`"nope"`, "*"}, false},
		{[]string{"*", `"nope"`}, false},
		{[]string{`"nope"`, current}, true},
	}
	for _, c := range cases {
		if got := matchWeak(c.tags, current); got != c.want {
			t.Errorf("matchWeak(%q) = %v, want %v", c.tags, got, c.want)
		}
		if got := matchStrong(c.tags, current); got != c.want {
			t.Errorf("matchStrong(%q) = %v, want %v", c.tags, got, c.want)
		}
	}
}
