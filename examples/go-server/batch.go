// The batch endpoint: OPTIONS answers the capabilities document (MB-LIMIT-2), POST takes a
// batch, every other method gets 405 (MB-METHOD-2). A POST is checked from the outside in
// (media type, boundary, mode, representation, size, envelope, parts) and refused with a
// problem document before any part runs (MB-PROC-1, MB-STATUS-2, MB-STATUS-3); only then do
// the parts run.
package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// batchEndpoint serves the batch endpoint at path.
type batchEndpoint struct {
	path     string
	limits   Limits
	timeout  time.Duration
	handler  http.Handler // where sub-requests go: the handler standalone requests reach
	store    *Store
	profiles []string
	inflight chan struct{} // one token per batch being held or run (MB-LIMIT-6)
}

// maxBatchesInFlight bounds the batches held at once: each may hold max_batch_bytes of
// content, so 16 batches bound the content held to 512 MiB with the default limits.
const maxBatchesInFlight = 16

const allowed = "POST, OPTIONS"

func (b *batchEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		b.post(w, r)
	case http.MethodOptions:
		b.options(w)
	default:
		if r.Method == http.MethodGet && hasContent(r) {
			// MB-METHOD-3: "answer 400 to a GET request ... to a batch endpoint, that has content".
			writeProblem(w, refusal(400, "MB-METHOD-3", "content-on-get", "Content on GET",
				"a GET to the batch endpoint carries content; a batch is sent with POST"))
			return
		}
		// MB-METHOD-2: 405 with an Allow field listing the supported methods.
		writeProblem(w, refusal(405, "MB-METHOD-2", "method-not-allowed", "Method not allowed",
			r.Method+" is not supported on the batch endpoint; use POST"), [2]string{"Allow", allowed})
	}
}

// options answers the capabilities document (MB-LIMIT-2).
func (b *batchEndpoint) options(w http.ResponseWriter) {
	doc := map[string]any{
		"spec_version": specVersion,
		"endpoint":     b.path,
		"limits": map[string]any{
			LimitMaxParts:           b.limits.MaxParts,
			LimitMaxBatchBytes:      b.limits.MaxBatchBytes,
			LimitMaxPartBytes:       b.limits.MaxPartBytes,
			LimitMaxPartHeaderBytes: b.limits.MaxPartHeaderBytes,
			LimitMaxPartFields:      b.limits.MaxPartFields,
		},
		"profiles":           b.profiles,
		"representations":    representations,
		"preferences":        []string{"batch-on-error=stop"},
		"x-max_part_fields":  b.limits.MaxPartFields,
		"x-batch_timeout_ms": b.timeout.Milliseconds(),
	}
	body, _ := json.Marshal(doc)
	h := w.Header()
	h.Set("Allow", allowed)
	h.Set("Accept-Post", mediaMultipart)
	h.Set("Content-Type", "application/vnd.mixbatch.capabilities+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// preferStop reports whether the Prefer fields ask for batch-on-error=stop. The name and the
// value match whatever their case, and the value may be quoted (MB-PROC-13); a value it does
// not know is ignored, as if absent (MB-PROC-11, RFC 7240 §2). Only the first batch-on-error
// in the field lines, read in order, counts; later ones are ignored (MB-PROC-13).
func preferStop(values []string) bool {
	stop := false
	for _, v := range values {
		for _, pref := range splitOutsideQuotes(v) {
			head, _, _ := strings.Cut(pref, ";")
			name, val, _ := strings.Cut(trimOWS(head), "=")
			if !strings.EqualFold(trimOWS(name), "batch-on-error") {
				continue
			}
			val = trimOWS(val)
			if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
				val = unquoteString(val)
			}
			switch {
			case asciiEqualFold(val, "stop"):
				stop = true
			case asciiEqualFold(val, "continue"):
				stop = false
			}
			return stop
		}
	}
	return stop
}

func (b *batchEndpoint) post(w http.ResponseWriter, r *http.Request) {
	// MB-TEST-7: the time budget counts from the moment the batch begins to arrive.
	deadline := time.Now().Add(b.timeout)
	if !validHost(r.Host) {
		// Spec 3.2.2 with MB-PART-5: a batch request without a valid Host (an empty one
		// included) is answered 400; its target URI, which parts resolve against, has none.
		writeProblem(w, refusal(400, "MB-PART-5", "invalid-host", "Invalid Host",
			"the batch request's Host "+strconv.Quote(r.Host)+" is not uri-host [\":\" port]"))
		return
	}
	select {
	case b.inflight <- struct{}{}:
		defer func() { <-b.inflight }()
	default:
		// MB-LIMIT-6: a batch beyond the in-flight budget gets 503 and Retry-After before
		// any part of it runs.
		writeProblem(w, refusal(503, "MB-LIMIT-6", "busy", "Too many batches in flight",
			"this server holds "+strconv.Itoa(cap(b.inflight))+" batches at once; send this one again later"),
			[2]string{"Retry-After", "1"})
		return
	}
	mt, ok := parseMediaType(r.Header.Get("Content-Type"))
	if mt.typ != mediaMultipart {
		// MB-WIRE-2: 415 "and an Accept-Post: multipart/mixed field".
		writeProblem(w, refusal(415, "MB-WIRE-2", "unsupported-media-type", "Unsupported media type",
			"a batch is multipart/mixed; got "+strconv.Quote(r.Header.Get("Content-Type"))),
			[2]string{"Accept-Post", mediaMultipart})
		return
	}
	if ce := unsupportedCoding(r.Header.Values("Content-Encoding")); ce != "" {
		// Section 10.1: a content coding the server does not support is answered 415 with an
		// Accept-Encoding field.
		writeProblem(w, refusal(415, "MB-WIRE-2", "unsupported-content-coding", "Unsupported content coding",
			"the batch content has the content coding "+strconv.Quote(ce)+", which this server does not decode"),
			[2]string{"Accept-Encoding", "identity"})
		return
	}
	boundary, why := boundaryOf(mt)
	if !ok {
		why = "the Content-Type parameters do not parse, so the boundary is unknown"
	}
	if n := len(r.Header.Values("Content-Type")); n > 1 {
		// Spec 3.1.1: a batch with more than one Content-Type field line "names no boundary a
		// server can trust either ... and is refused before any part runs: 400 under this
		// requirement [MB-WIRE-4]", whichever line another component would read.
		why = "the batch carries " + strconv.Itoa(n) + " Content-Type field lines, so its boundary is ambiguous"
	}
	// MB-PROC-17: Batch-Mode is a list; readModeList (modes.go) reads it before the mode check.
	readModeList(r)
	if why != "" {
		writeProblem(w, refusal(400, "MB-WIRE-4", "malformed-batch", "Invalid boundary", why))
		return
	}
	atomic := false
	if modes := r.Header.Values("Batch-Mode"); len(modes) > 0 {
		// MB-PROC-12: a Batch-Mode value the server does not implement is answered 501.
		if len(modes) != 1 || trimOWS(modes[0]) != "atomic" || !b.offers("atomic") {
			writeProblem(w, refusal(501, "MB-PROC-12", "batch-mode-not-implemented",
				"Batch mode not implemented", "this server implements only Batch-Mode: atomic"))
			return
		}
		atomic = true
	}
	media := negotiate(r.Header.Values("Accept"), representations)
	if media == "" {
		// MB-STATUS-9: 406 when Accept admits none of the batch representations.
		writeProblem(w, refusal(406, "MB-STATUS-9", "not-acceptable", "Not acceptable",
			"Accept admits none of "+strings.Join(representations, ", ")))
		return
	}
	content, tooBig := b.readContent(r)
	if tooBig {
		e := overLimit(413, LimitMaxBatchBytes, b.limits.MaxBatchBytes, "Batch too large", -1, -1,
			"the batch content exceeds %d octets; no part ran", b.limits.MaxBatchBytes)
		writeProblem(w, e)
		return
	}
	if content == nil {
		writeProblem(w, refusal(400, "MB-WIRE-13", "malformed-batch", "Incomplete batch content",
			"the batch content could not be read to its end"))
		return
	}
	subs, perr := b.validate(content, boundary, r)
	if perr != nil {
		writeProblem(w, perr)
		return
	}
	stop := preferStop(r.Header.Values("Prefer")) && b.offers("error-policy")
	applied := ""
	if stop {
		applied = "batch-on-error=stop"
	}
	var sink resultSink
	if media == mediaMultipart {
		sink = newMultipartSink(w, applied)
	} else {
		sink = newDocumentSink(w, media, applied)
	}
	x := &executor{handler: b.handler, batch: r, store: b.store}
	x.run(subs, plan{stop: stop, atomic: atomic, deadline: deadline, budget: b.timeout}, sink)
}

// readContent reads the whole batch content, or reports that it exceeds max_batch_bytes.
// It returns nil content when the content could not be read.
func (b *batchEndpoint) readContent(r *http.Request) ([]byte, bool) {
	if r.ContentLength > b.limits.MaxBatchBytes {
		return nil, true
	}
	content, err := io.ReadAll(io.LimitReader(r.Body, b.limits.MaxBatchBytes+1))
	if err != nil {
		return nil, false
	}
	if int64(len(content)) > b.limits.MaxBatchBytes {
		return nil, true
	}
	if content == nil {
		content = []byte{}
	}
	return content, false
}

// validate parses the envelope and checks every part before any part runs (MB-PROC-1).
func (b *batchEndpoint) validate(content []byte, boundary string, r *http.Request) ([]SubRequest, *EnvelopeError) {
	parts, err := ParseEnvelope(content, boundary, b.limits)
	if err != nil {
		return nil, err
	}
	bc := batchContext{host: r.Host, path: r.URL.EscapedPath(), query: r.URL.RawQuery, endpoint: b.path}
	subs := make([]SubRequest, 0, len(parts))
	for _, p := range parts {
		sub, err := validatePart(p, bc)
		if err != nil {
			return nil, err
		}
		subs = append(subs, sub)
	}
	return subs, nil
}

func (b *batchEndpoint) offers(profile string) bool {
	for _, p := range b.profiles {
		if p == profile {
			return true
		}
	}
	return false
}
