package main

import "testing"

func TestValidHostIPLiterals(t *testing.T) {
	for host, want := range map[string]bool{
		"[::1]:8080":          true,
		"[::ffff:1.2.3.4]":    true,
		"[v7.a:b]:8080":       true,
		"[V1.x]":              true,
		"[v1.]":               false,
		"[v.x]":               false,
		"[vz.x]":              false,
		"[:::]":               false,
		"[1.2.3.4]":           false,
		"[fe80::1%25eth0]:80": false,
		"[::1]x":              false,
	} {
		if got := validHost(host); got != want {
			t.Errorf("validHost(%q) = %v, want %v", host, got, want)
		}
	}
}
