// The 207 representations of a batch result (section 6): the JSON form (MB-MULTI-4,
// MB-MULTI-7) and the RFC 4918 XML form (MB-MULTI-3, MB-MULTI-6). Both carry what the
// multipart form carries (MB-MULTI-5), so they are built from the same part results once the
// batch is done.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"strconv"
	"unicode/utf8"
)

const (
	mediaMultipart = "multipart/mixed"
	mediaJSON      = "application/vnd.mixbatch.multistatus+json"
	mediaXML       = "application/xml"
	specVersion    = "draft-02"
	nsMultistatus  = "https://mixbatch.dev/ns/multistatus"
)

// representations are the batch result media types, the default first.
var representations = []string{mediaMultipart, mediaJSON, mediaXML}

// latin1 maps each octet of a field value to one character, so a client recovers the exact
// octets (section 6.3).
func latin1(s string) string {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

// documentSink collects a batch result and writes it as one 207 document.
type documentSink struct {
	rw      http.ResponseWriter
	media   string
	applied string
	results []partResult
	abortAt int // -1 when the batch did not abort
	abortPD []byte
}

func newDocumentSink(rw http.ResponseWriter, media, applied string) *documentSink {
	return &documentSink{rw: rw, media: media, applied: applied, abortAt: -1}
}

func (s *documentSink) begin() {}

func (s *documentSink) part(r partResult) bool {
	s.results = append(s.results, r)
	return true
}

func (s *documentSink) abort(partIndex int, doc []byte) {
	s.abortAt, s.abortPD = partIndex, doc
	s.finish()
}

func (s *documentSink) finish() {
	var body []byte
	if s.media == mediaJSON {
		body = s.jsonDocument()
	} else {
		body = s.xmlDocument()
	}
	h := s.rw.Header()
	h.Set("Cache-Control", "no-transform")
	h.Set("Vary", "Accept")
	if s.applied != "" {
		h.Set("Preference-Applied", s.applied)
	}
	h.Set("Content-Type", s.media)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	s.rw.WriteHeader(http.StatusMultiStatus)
	_, _ = s.rw.Write(body)
}

type jsonEntry struct {
	Index      int         `json:"index"`
	Href       *string     `json:"href"`
	ContentID  *string     `json:"content_id"`
	Status     *int        `json:"status"`
	Outcome    *string     `json:"outcome"`
	Headers    [][2]string `json:"headers"`
	Body       *string     `json:"body,omitempty"`
	BodyBase64 *string     `json:"body_base64,omitempty"`
}

// setBody fills exactly one of body and body_base64 (MB-MULTI-7): text when the octets are
// valid UTF-8, base64 otherwise.
func (e *jsonEntry) setBody(b []byte) {
	if utf8.Valid(b) {
		s := string(b)
		e.Body = &s
		return
	}
	s := base64.StdEncoding.EncodeToString(b)
	e.BodyBase64 = &s
}

func (s *documentSink) jsonDocument() []byte {
	summary := map[string]int{"ok": 0, "failed": 0, "skipped": 0, "rolled_back": 0}
	entries := make([]jsonEntry, 0, len(s.results)+1)
	for _, r := range s.results {
		href, cid := r.sub.Target, r.sub.ContentID[1:len(r.sub.ContentID)-1]
		e := jsonEntry{Index: r.sub.Index, Href: &href, ContentID: &cid, Headers: [][2]string{}}
		if r.status != 0 {
			st := r.status
			e.Status = &st
		}
		switch r.outcome {
		case "skipped":
			summary["skipped"]++
		case "rolled-back":
			summary["rolled_back"]++
		default:
			if r.status >= 400 {
				summary["failed"]++
			} else {
				summary["ok"]++
			}
		}
		if r.outcome != "" {
			o := r.outcome
			e.Outcome = &o
		}
		for _, f := range r.header {
			e.Headers = append(e.Headers, [2]string{f[0], latin1(f[1])})
		}
		e.setBody(r.body)
		entries = append(entries, e)
	}
	if s.abortAt >= 0 {
		// MB-MULTI-12: the abort report's index is the first part not answered, and its one
		// header field is Content-Type.
		o := "aborted"
		e := jsonEntry{Index: s.abortAt, Outcome: &o,
			Headers: [][2]string{{"Content-Type", "application/problem+json"}}}
		e.setBody(s.abortPD)
		entries = append(entries, e)
	}
	doc := map[string]any{"spec_version": specVersion, "summary": summary, "responses": entries}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// xmlDocument writes the DAV:multistatus form. The prefixes are "d" for DAV: and "m" for the
// mixbatch namespace; the elements of each response come in the order index, href,
// content-id, status, outcome, headers, body.
func (s *documentSink) xmlDocument() []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<d:multistatus xmlns:d="DAV:" xmlns:m="` + nsMultistatus + `">`)
	text := func(s string) {
		_ = xml.EscapeText(&b, []byte(s))
	}
	for _, r := range s.results {
		b.WriteString("<d:response><m:index>" + strconv.Itoa(r.sub.Index) + "</m:index><d:href>")
		text(r.sub.Target)
		b.WriteString("</d:href><m:content-id>")
		text(r.sub.ContentID[1 : len(r.sub.ContentID)-1])
		b.WriteString("</m:content-id>")
		if r.status != 0 {
			b.WriteString("<d:status>HTTP/1.1 " + strconv.Itoa(r.status) + " " + http.StatusText(r.status) + "</d:status>")
		}
		if r.outcome != "" {
			b.WriteString("<m:outcome>" + r.outcome + "</m:outcome>")
		}
		for _, f := range r.header {
			b.WriteString(`<m:header name="`)
			text(f[0])
			b.WriteString(`">`)
			text(latin1(f[1]))
			b.WriteString("</m:header>")
		}
		b.WriteString(`<m:body encoding="base64">` + base64.StdEncoding.EncodeToString(r.body) + "</m:body></d:response>")
	}
	if s.abortAt >= 0 {
		b.WriteString("<d:response><m:index>" + strconv.Itoa(s.abortAt) + "</m:index>" +
			"<m:outcome>aborted</m:outcome>" +
			`<m:header name="Content-Type">application/problem+json</m:header>` +
			`<m:body encoding="base64">` + base64.StdEncoding.EncodeToString(s.abortPD) +
			"</m:body></d:response>")
	}
	b.WriteString("</d:multistatus>\n")
	return b.Bytes()
}
