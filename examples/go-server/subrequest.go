// Sub-requests: one part becomes an ordinary *http.Request handed to the same handler that
// standalone requests reach, so every part meets the same routing and checks (MB-SUB-1). The
// response is captured by a recorder and turned into the part's status, fields and body.
package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// partResult is the answer to one request part.
type partResult struct {
	sub     *SubRequest
	status  int    // 0 when the sub-request did not run
	outcome string // "", "skipped" or "rolled-back" (section 3.3.4)
	header  [][2]string
	body    []byte
}

func (r partResult) failed() bool { return r.outcome == "" && r.status >= 400 }

// fieldsKey carries a sub-request's header fields, in order and with their names as sent, to
// resources that describe the request they received.
type fieldsKey struct{}

// orderedFields returns the header fields of r in the order they were sent, when known.
func orderedFields(r *http.Request) ([]Field, bool) {
	f, ok := r.Context().Value(fieldsKey{}).([]Field)
	return f, ok
}

// inheritedFields are the batch request's fields a part receives unless it has its own
// (MB-SUB-5); no other field of the batch request reaches a part (MB-SUB-6).
var inheritedFields = []string{"Authorization", "Cookie"}

// newSubRequest builds the request a part stands for. Nothing is added to the part's own
// fields but the inherited credentials: no Host field line (the authority is the batch
// request's, carried in req.Host) and no Content-Length the part did not send.
func newSubRequest(ctx context.Context, batch *http.Request, sub *SubRequest) (*http.Request, error) {
	u, err := url.ParseRequestURI(sub.Target)
	if err != nil {
		return nil, err
	}
	u.Scheme, u.Host = "http", batch.Host
	fields := append([]Field(nil), sub.Fields...)
	for _, name := range inheritedFields {
		own := false
		for _, f := range sub.Fields {
			if equalFold(f.Name, name) {
				own = true
			}
		}
		if !own {
			for _, v := range batch.Header.Values(name) {
				fields = append(fields, Field{Name: name, Value: v, Offset: -1})
			}
		}
	}
	req := &http.Request{
		Method:     sub.Method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header, len(fields)),
		Body:       http.NoBody,
		Host:       batch.Host,
		RemoteAddr: batch.RemoteAddr,
		RequestURI: sub.Target,
	}
	for _, f := range fields {
		req.Header.Add(f.Name, f.Value)
	}
	if len(sub.Body) > 0 {
		req.Body = readCloser{bytes.NewReader(sub.Body)}
		req.ContentLength = int64(len(sub.Body))
	}
	return req.WithContext(context.WithValue(ctx, fieldsKey{}, fields)), nil
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// recorder is the http.ResponseWriter a sub-request writes to.
type recorder struct {
	header http.Header
	final  http.Header // the header fields as they were when the final status was written
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: make(http.Header)} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status != 0 {
		return
	}
	if code >= 100 && code < 200 {
		// MB-RESP-9: "discards the interim responses of a sub-request and reports its final one".
		return
	}
	r.status = code
	r.final = r.header.Clone()
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	return r.body.Write(b)
}

// responseFieldsDropped are the sub-response fields MB-RESP-4 keeps out of a response part.
var responseFieldsDropped = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding", "Upgrade",
	"Trailer", "Content-Length",
}

// result turns what the handler wrote into the part's answer, as net/http would have sent it
// standalone: a sniffed Content-Type when the handler set none, and no body for HEAD, 204
// and 304.
func (r *recorder) result(sub *SubRequest) partResult {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	body := r.body.Bytes()
	if sub.Method == http.MethodHead || r.status == 204 || r.status == 304 {
		body = nil
	}
	h := r.final
	if _, ok := h["Content-Type"]; !ok && len(body) > 0 {
		h.Set("Content-Type", http.DetectContentType(body))
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	var fields [][2]string
	for _, name := range names {
		if !isToken(name) || dropped(name) {
			continue
		}
		for _, v := range h[name] {
			// MB-SEC-3: never write a field value holding CR, LF or NUL.
			if strings.ContainsAny(v, "\r\n\x00") {
				continue
			}
			fields = append(fields, [2]string{name, v})
		}
	}
	return partResult{sub: sub, status: r.status, header: fields, body: body}
}

func dropped(name string) bool {
	for _, d := range responseFieldsDropped {
		if equalFold(name, d) {
			return true
		}
	}
	return false
}

// serveSub runs one sub-request to completion. A handler that panics answers 500 in its part.
func serveSub(ctx context.Context, h http.Handler, batch *http.Request, sub *SubRequest) (res partResult) {
	req, err := newSubRequest(ctx, batch, sub)
	if err != nil {
		return plainResult(sub, 400, fmt.Sprintf("the target %s cannot be routed\n", sub.Target))
	}
	rec := newRecorder()
	defer func() {
		if p := recover(); p != nil {
			res = plainResult(sub, 500, "the resource failed\n")
		}
	}()
	h.ServeHTTP(rec, req)
	return rec.result(sub)
}

func plainResult(sub *SubRequest, status int, text string) partResult {
	return partResult{
		sub: sub, status: status, body: []byte(text),
		header: [][2]string{{"Content-Type", "text/plain; charset=utf-8"}},
	}
}
