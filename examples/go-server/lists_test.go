package main

import (
	"reflect"
	"testing"
)

func TestUnsupportedCodingReadsEveryMemberOfEveryLine(t *testing.T) {
	cases := map[string]struct {
		lines []string
		want  string
	}{
		"none":               {nil, ""},
		"identity":           {[]string{"identity"}, ""},
		"identity twice":     {[]string{"identity, ,Identity"}, ""},
		"on one line":        {[]string{"identity, gzip"}, "gzip"},
		"on a second line":   {[]string{"identity", "gzip"}, "gzip"},
		"first of two lines": {[]string{"br", "identity"}, "br"},
	}
	for name, c := range cases {
		if got := unsupportedCoding(c.lines); got != c.want {
			t.Errorf("%s: unsupportedCoding(%q) = %q, want %q", name, c.lines, got, c.want)
		}
	}
}

func TestSplitOutsideQuotesKeepsQuotedCommas(t *testing.T) {
	got := splitOutsideQuotes(`x="a, batch-on-error=stop, b", respond-async`)
	want := []string{`x="a, batch-on-error=stop, b"`, ` respond-async`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = splitOutsideQuotes(`x="a\", b", y`)
	want = []string{`x="a\", b"`, ` y`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("escaped quote: got %q, want %q", got, want)
	}
	if stop := preferStop([]string{`x="a, batch-on-error=stop, b"`}); stop {
		t.Error("a preference inside a quoted value was taken for batch-on-error=stop")
	}
	if stop := preferStop([]string{`respond-async, batch-on-error=stop`}); !stop {
		t.Error("batch-on-error=stop after another preference was not read")
	}
}

func TestPreferFirstBatchOnErrorCounts(t *testing.T) {
	// MB-PROC-13, RFC 7240 §2: only the first batch-on-error instance counts, whatever the
	// later ones say; an unrecognised first value leaves the preference absent (MB-PROC-11).
	cases := []struct {
		lines []string
		want  bool
	}{
		{[]string{"batch-on-error=stop, batch-on-error=continue"}, true},
		{[]string{"batch-on-error=continue, batch-on-error=stop"}, false},
		{[]string{"batch-on-error=stop", "batch-on-error=continue"}, true},
		{[]string{"batch-on-error=continue", "batch-on-error=stop"}, false},
		{[]string{`Batch-On-Error="STOP", batch-on-error=continue`}, true},
		{[]string{"batch-on-error=maybe, batch-on-error=stop"}, false},
		{[]string{"batch-on-error=maybe", "batch-on-error=stop"}, false},
		{[]string{"respond-async", "wait=5, batch-on-error=stop, batch-on-error=continue"}, true},
	}
	for _, c := range cases {
		if got := preferStop(c.lines); got != c.want {
			t.Errorf("preferStop(%q) = %v, want %v", c.lines, got, c.want)
		}
	}
}

func TestValidHost(t *testing.T) {
	for host, want := range map[string]bool{
		"example.org": true, "127.0.0.1:8080": true, "[::1]:80": true, "a%20b": true,
		"": false, "x:y:z": false, "u@h": false, "a b": false, ":80": false, "[::1]x": false,
	} {
		if got := validHost(host); got != want {
			t.Errorf("validHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestPreferValueQuotedPairsRead(t *testing.T) {
	for _, v := range []string{`batch-on-error="st\op"`, `batch-on-error="\s\t\o\p"`, `batch-on-error="stop"`} {
		if !preferStop([]string{v}) {
			t.Errorf("%s: a quoted-string standing for stop was not read as stop (MB-PROC-13)", v)
		}
	}
	if preferStop([]string{`batch-on-error="st\\op"`}) {
		t.Error(`"st\\op" stands for st\op, not stop`)
	}
}

func TestOriginFormOfAbsoluteTargets(t *testing.T) {
	for in, want := range map[string]string{
		"/mirror?a=1":                   "/mirror?a=1",
		"http://127.0.0.1:9/mirror?a=1": "/mirror?a=1",
		"http://h:1?a=1":                "/?a=1",
		"HTTP://h/mirr%6Fr":             "/mirr%6Fr",
		"http://h":                      "/",
	} {
		if got := originForm(in); got != want {
			t.Errorf("originForm(%q) = %q, want %q", in, got, want)
		}
	}
}
