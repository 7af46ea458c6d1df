// Reading Batch-Mode as the list it is. The field is 1#mode-value (section 9) under the list
// rules of RFC 9110 section 5.6.1, so "atomic", "atomic," ", atomic", "atomic, atomic" and two
// field lines "atomic" all ask for the same thing: the atomic mode.
package main

import (
	"net/http"
	"strings"
)

// modeList splits the Batch-Mode field lines into their mode values. RFC 9110 section 5.6.1.2:
// "a recipient MUST parse and ignore a reasonable number of empty list elements"; so elements
// are split on commas, trimmed of OWS, and the empty ones dropped.
func modeList(lines []string) []string {
	var modes []string
	for _, line := range lines {
		for _, element := range strings.Split(line, ",") {
			if mode := trimOWS(element); mode != "" {
				modes = append(modes, mode)
			}
		}
	}
	return modes
}

// readModeList rewrites a Batch-Mode list whose every element is "atomic" to the single value
// the mode check of post compares. MB-PROC-17: a server "MUST read Batch-Mode as a
// comma-separated list of modes"; a list that names a mode twice names that one mode. Any
// other list is left as sent, so a list with no element, or with a mode this server does not
// implement, is still answered 501 (MB-PROC-12, MB-PROC-17). Values are case-sensitive
// (section 3.4), so "ATOMIC" is not atomic.
func readModeList(r *http.Request) {
	lines := r.Header.Values("Batch-Mode")
	if len(lines) == 0 {
		return
	}
	modes := modeList(lines)
	if len(modes) == 0 {
		return
	}
	for _, mode := range modes {
		if mode != "atomic" {
			return
		}
	}
	r.Header.Set("Batch-Mode", "atomic")
}
