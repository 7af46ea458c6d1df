// The multipart batch response: one part per request part, in request order (MB-RESP-1),
// each written as soon as it and every part before it are complete (MB-PROC-4).
//
// Each response part's header section holds, in this order: Content-Id (the echo of
// MB-RESP-3), Http-Status-Code (MB-RESP-2) or Batch-Outcome (MB-RESP-5), the sub-response's
// fields (MB-RESP-4), then Content-Length (MB-WIRE-15). The content ends with the close
// delimiter and nothing after it: no CRLF, no epilogue (MB-WIRE-10).
package main

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"strconv"
)

// boundaryAlphabet is the alphabet MB-WIRE-5 recommends; 64 symbols, 6 bits each.
const boundaryAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

// boundaryLength is 32 characters (192 bits), twice MB-WIRE-5's minimum of 16.
const boundaryLength = 32

// newBoundary draws a fresh boundary from a cryptographically secure source (MB-WIRE-5).
func newBoundary() string {
	b := make([]byte, boundaryLength)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	for i := range b {
		b[i] = boundaryAlphabet[b[i]&63]
	}
	return string(b)
}

// collides reports whether content holds the dash-boundary at its start or after any LF,
// where a receiver would take it for a delimiter line (MB-WIRE-6).
func collides(content []byte, dash []byte) bool {
	return bytes.HasPrefix(content, dash) || bytes.Contains(content, append([]byte("\n"), dash...))
}

// multipartWriter writes parts to a stream.
type multipartWriter struct {
	w        io.Writer
	boundary string
	parts    int
}

// writePart writes one part. It refuses (returns false) a body that would collide with the
// boundary, which is then too late to change (MB-WIRE-6: "choose another boundary, or fail").
func (m *multipartWriter) writePart(fields [][2]string, body []byte) bool {
	dash := []byte("--" + m.boundary)
	if collides(body, dash) {
		return false
	}
	var b bytes.Buffer
	if m.parts > 0 {
		b.WriteString("\r\n")
	}
	b.Write(dash)
	b.WriteString("\r\n")
	for _, f := range fields {
		b.WriteString(f[0])
		b.WriteString(": ")
		b.WriteString(f[1])
		b.WriteString("\r\n")
	}
	b.WriteString("Content-Length: ")
	b.WriteString(strconv.Itoa(len(body)))
	b.WriteString("\r\n\r\n")
	b.Write(body)
	m.parts++
	_, _ = m.w.Write(b.Bytes())
	if f, ok := m.w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

func (m *multipartWriter) close() {
	end := "--" + m.boundary + "--"
	if m.parts > 0 {
		end = "\r\n" + end
	}
	_, _ = io.WriteString(m.w, end)
}

// resultFields is the header section of a response part, less its Content-Length.
func resultFields(r partResult) [][2]string {
	fields := [][2]string{{"Content-Id", r.sub.ContentID}}
	if r.status != 0 {
		fields = append(fields, [2]string{"Http-Status-Code", strconv.Itoa(r.status)})
	}
	if r.outcome != "" {
		fields = append(fields, [2]string{"Batch-Outcome", r.outcome})
	}
	return append(fields, r.header...)
}

// multipartSink streams a batch result as multipart/mixed with status 200 (MB-STATUS-1).
type multipartSink struct {
	rw      http.ResponseWriter
	mw      *multipartWriter
	applied string // Preference-Applied value, when a preference was applied
	began   bool
}

func newMultipartSink(rw http.ResponseWriter, applied string) *multipartSink {
	return &multipartSink{rw: rw, mw: &multipartWriter{w: rw, boundary: newBoundary()}, applied: applied}
}

func (s *multipartSink) begin() {
	if s.began {
		return
	}
	s.began = true
	h := s.rw.Header()
	h.Set("Cache-Control", "no-transform")
	h.Set("Vary", "Accept")
	if s.applied != "" {
		h.Set("Preference-Applied", s.applied)
	}
	h.Set("Content-Type", "multipart/mixed; boundary="+s.mw.boundary)
	s.rw.WriteHeader(http.StatusOK)
	if f, ok := s.rw.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *multipartSink) part(r partResult) bool {
	s.begin()
	if !s.mw.writePart(resultFields(r), r.body) {
		// The boundary went out with the status line, so the only way left to fail is the
		// abort part; the machinery failed, hence 500 (MB-STATUS-14).
		s.abort(r.sub.Index, abortProblem(r.sub.Index, 500, "MB-WIRE-6", "Boundary collision",
			"the response to part "+strconv.Itoa(r.sub.Index)+" contains the response boundary"))
		return false
	}
	return true
}

// abort ends the response with the Batch-Outcome: aborted part of MB-STATUS-6.
func (s *multipartSink) abort(partIndex int, doc []byte) {
	s.begin()
	s.mw.writePart([][2]string{
		{"Batch-Outcome", "aborted"},
		{"Content-Type", "application/problem+json"},
	}, doc)
	s.mw.close()
}

func (s *multipartSink) finish() {
	s.begin()
	s.mw.close()
}
