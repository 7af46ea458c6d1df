package main

import "testing"

func TestPreferValueFoldsUSASCIIOnly(t *testing.T) {
	for _, c := range []struct {
		value string
		stop  bool
	}{
		{"batch-on-error=stop", true},
		{"batch-on-error=STOP", true},
		{`batch-on-error="Stop"`, true},
		{"batch-on-error=\u017ftop", false},
		{`batch-on-error="\u017ftop"`, false},
		{"batch-on-error=\u017fTOP", false},
	} {
		if got := preferStop([]string{c.value}); got != c.stop {
			t.Errorf("preferStop(%q) = %v, want %v", c.value, got, c.stop)
		}
	}
}
