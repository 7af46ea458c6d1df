// Problem details (RFC 9457) for every 4xx and 5xx answer to a batch request, and for the
// abort part: MB-STATUS-4 asks for a `requirement` member, and for `part_index` and
// `byte_offset` when the server knows them.
package main

import (
	"encoding/json"
	"net/http"
	"strconv"
)

const problemTypeBase = "https://mixbatch.dev/problems/"

// problemDoc renders an EnvelopeError as a problem document.
func problemDoc(e *EnvelopeError) []byte {
	doc := map[string]any{
		"type":        problemTypeBase + e.Slug,
		"title":       e.Title,
		"status":      e.Status,
		"detail":      e.Detail,
		"requirement": e.Requirement,
	}
	if e.PartIndex >= 0 {
		doc["part_index"] = e.PartIndex
	}
	if e.ByteOffset >= 0 {
		doc["byte_offset"] = e.ByteOffset
	}
	if e.Limit != "" {
		doc["limit"] = e.Limit
		doc["value"] = e.LimitValue
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // a map of strings and integers always encodes
	}
	return b
}

// writeProblem answers a request with a problem document. Extra header fields go first.
func writeProblem(w http.ResponseWriter, e *EnvelopeError, extra ...[2]string) {
	body := problemDoc(e)
	h := w.Header()
	for _, f := range extra {
		h.Add(f[0], f[1])
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-transform")
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

// refusal builds a problem that concerns the request as a whole (no part, no offset).
func refusal(status int, req, slug, title, detail string) *EnvelopeError {
	return &EnvelopeError{
		Status: status, Requirement: req, Slug: slug, Title: title, Detail: detail,
		PartIndex: -1, ByteOffset: -1,
	}
}
