// Request parts: turns each parsed part into a sub-request, or refuses the batch. The checks
// here need the request's context (its authority and target, the endpoint's path), which the
// envelope parser does not have.
package main

import "net/url"

// SubRequest is what one request part asks for.
type SubRequest struct {
	Index     int
	Method    string
	ContentID string  // the Content-Id field value as sent, angle brackets included
	Target    string  // resolved origin-form target (path and query), as sent on the wire
	Path      string  // Target's path, percent-decoded, as routing sees it
	Fields    []Field // the sub-request's header fields, in order (MB-PART-8)
	Body      []byte
}

// forbiddenPartFields are the fields MB-PART-9 keeps out of request parts.
var forbiddenPartFields = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding", "Upgrade",
	"Expect", "Host", "Trailer", "Content-Transfer-Encoding", "Http-Status-Code",
}

// batchContext is what the part checks know of the batch request.
type batchContext struct {
	host     string // the batch request's authority
	path     string // the batch request's target path (raw)
	query    string
	endpoint string // the batch endpoint's path, as routing sees it
}

// validatePart checks one part and builds its sub-request.
func validatePart(p Part, bc batchContext) (SubRequest, *EnvelopeError) {
	sub := SubRequest{Index: p.Index, Body: p.Body}
	var method, cid *Field
	for i := range p.Fields {
		f := &p.Fields[i]
		for _, name := range forbiddenPartFields {
			if equalFold(f.Name, name) {
				// MB-PART-10: "answer 400 to a batch request in which a request part carries
				// a field that MB-PART-9 forbids".
				return sub, malformed("MB-PART-10", "Forbidden field in a part", p.Index, f.Offset,
					"part %d carries %s, which a request part must not carry", p.Index, f.Name)
			}
		}
		switch {
		case equalFold(f.Name, "Http-Method"):
			// MB-PART-2: no Http-Method field, more than one, or one that is not a token.
			if method != nil {
				return sub, malformed("MB-PART-2", "Repeated Http-Method", p.Index, f.Offset,
					"part %d has a second Http-Method field at byte %d", p.Index, f.Offset)
			}
			if !isToken(f.Value) {
				return sub, malformed("MB-PART-2", "Invalid Http-Method", p.Index, f.Offset,
					"the Http-Method of part %d is %q, not a method token", p.Index, f.Value)
			}
			method = f
		case equalFold(f.Name, "Content-Id"):
			// MB-PART-4: no Content-Id field, more than one, or not "<" URI-reference ">".
			if cid != nil {
				return sub, malformed("MB-PART-4", "Repeated Content-Id", p.Index, f.Offset,
					"part %d has a second Content-Id field at byte %d", p.Index, f.Offset)
			}
			cid = f
		default:
			sub.Fields = append(sub.Fields, *f)
		}
	}
	if method == nil {
		return sub, malformed("MB-PART-2", "Missing Http-Method", p.Index, p.Offset,
			"part %d has no Http-Method field", p.Index)
	}
	if cid == nil {
		return sub, malformed("MB-PART-4", "Missing Content-Id", p.Index, p.Offset,
			"part %d has no Content-Id field", p.Index)
	}
	sub.Method, sub.ContentID = method.Value, cid.Value
	v := cid.Value
	if len(v) < 2 || v[0] != '<' || v[len(v)-1] != '>' {
		return sub, malformed("MB-PART-4", "Malformed Content-Id", p.Index, cid.Offset,
			"the Content-Id of part %d is %q, not \"<\" URI-reference \">\"", p.Index, v)
	}
	ref, ok := parseURIReference(v[1 : len(v)-1])
	if !ok {
		return sub, malformed("MB-PART-4", "Malformed Content-Id", p.Index, cid.Offset,
			"the Content-Id of part %d is %q, whose inside is not a URI reference", p.Index, v)
	}
	// MB-SUB-3: "answer 400 ... in which any part's Http-Method is CONNECT or TRACE".
	if sub.Method == "CONNECT" || sub.Method == "TRACE" {
		return sub, malformed("MB-SUB-3", "Method not allowed in a batch", p.Index, method.Offset,
			"part %d uses %s, which a batch cannot carry", p.Index, sub.Method)
	}
	if err := checkTarget(p, cid, ref, bc, &sub); err != nil {
		return sub, err
	}
	return sub, nil
}

// checkTarget resolves the part's target and applies MB-SUB-8, MB-SUB-2 and MB-SUB-4.
func checkTarget(p Part, cid *Field, ref uriRef, bc batchContext, sub *SubRequest) *EnvelopeError {
	raw := cid.Value[1 : len(cid.Value)-1]
	if raw == "*" {
		// MB-SUB-8: "answer 400 ... in which any part's Content-Id value is <*>".
		return malformed("MB-SUB-8", "Asterisk target", p.Index, cid.Offset,
			"part %d targets <*>, which names no resource", p.Index)
	}
	// MB-SUB-2: another scheme or authority, userinfo, a network-path reference, a fragment.
	switch {
	case ref.hasFragment:
		return malformed("MB-SUB-2", "Fragment in a target", p.Index, cid.Offset,
			"the target %q of part %d has a fragment", raw, p.Index)
	case ref.hasAuthority && !ref.hasScheme:
		return malformed("MB-SUB-2", "Network-path reference", p.Index, cid.Offset,
			"the target %q of part %d is a network-path reference", raw, p.Index)
	case ref.hasScheme && (!ref.hasAuthority || !sameOrigin(ref, bc.host)):
		return malformed("MB-SUB-2", "Target on another origin", p.Index, cid.Offset,
			"the target %q of part %d is not on this batch's origin http://%s", raw, p.Index, bc.host)
	}
	t := resolve(ref, bc.host, bc.path, bc.query)
	sub.Target = t.originForm()
	path, err := url.PathUnescape(t.path)
	if err != nil {
		return malformed("MB-PART-4", "Malformed Content-Id", p.Index, cid.Offset,
			"the path of part %d's target %q does not decode", p.Index, raw)
	}
	if path == "" {
		path = "/"
	}
	sub.Path = path
	// MB-SUB-4: "answer 400 ... in which any part's target is a batch endpoint".
	if path == bc.endpoint {
		return malformed("MB-SUB-4", "Nested batch", p.Index, cid.Offset,
			"the target %q of part %d is the batch endpoint", raw, p.Index)
	}
	return nil
}
