// The envelope parser: batch content in, parts out. It does no I/O and knows nothing of HTTP
// beyond the field-line grammar, so the tests feed it octets directly.
//
// Theory of operation. The content is scanned once, front to back:
//
//	multipart-body = [ preamble CRLF ] dash-boundary transport-padding CRLF
//	                 body-part *encapsulation close-delimiter transport-padding
//	                 [ CRLF epilogue ]
//	body-part      = part-header [ CRLF part-body ]
//	delimiter      = CRLF dash-boundary
//
// A line that begins with the dash-boundary is a delimiter line and must be exactly that
// (MB-WIRE-19); every structural line ends with CRLF and nothing else (MB-WIRE-8). A part
// body runs to the next CRLF dash-boundary; an LF without CR before the dash-boundary inside a
// body is a delimiter line with a bare LF and is rejected. A part's Content-Length is a check
// against the length found by the delimiter, never a second framing (MB-WIRE-17).
//
// Every error carries the requirement it enforces, the status it maps to, the part index and
// the octet offset, following the conventions of spec/examples/README.md.
package main

import (
	"bytes"
	"fmt"
	"strconv"
)

// Field is one field line of a part header section, as sent.
type Field struct {
	Name   string
	Value  string // the field value with surrounding whitespace removed
	Offset int    // octet offset of the field line's first octet in the content
}

// Part is one body part of the envelope.
type Part struct {
	Index  int
	Offset int // octet offset of the first octet of the part's header section
	Fields []Field
	Body   []byte
}

// EnvelopeError is a reason to refuse a batch before any part runs. The client is to blame
// for every one of them.
type EnvelopeError struct {
	Status      int
	Requirement string
	Slug        string
	Title       string
	Detail      string
	PartIndex   int // -1 when unknown
	ByteOffset  int // -1 when unknown
	Limit       string
	LimitValue  int64
}

func (e *EnvelopeError) Error() string {
	return fmt.Sprintf("%d %s (%s) part %d at byte %d: %s",
		e.Status, e.Title, e.Requirement, e.PartIndex, e.ByteOffset, e.Detail)
}

func malformed(req, title string, part, offset int, detail string, args ...any) *EnvelopeError {
	return &EnvelopeError{
		Status: 400, Requirement: req, Slug: "malformed-batch", Title: title,
		Detail: fmt.Sprintf(detail, args...), PartIndex: part, ByteOffset: offset,
	}
}

func overLimit(status int, limit string, value int64, title string, part, offset int,
	detail string, args ...any) *EnvelopeError {
	return &EnvelopeError{
		Status: status, Requirement: "MB-STATUS-3", Slug: "limit-exceeded", Title: title,
		Detail: fmt.Sprintf(detail, args...), PartIndex: part, ByteOffset: offset,
		Limit: limit, LimitValue: value,
	}
}

// ParseEnvelope splits batch content into parts under the given boundary and limits.
func ParseEnvelope(data []byte, boundary string, lim Limits) ([]Part, *EnvelopeError) {
	p := &envelopeParser{data: data, dash: []byte("--" + boundary), lim: lim}
	return p.parse()
}

type envelopeParser struct {
	data []byte
	dash []byte
	lim  Limits
}

func (p *envelopeParser) parse() ([]Part, *EnvelopeError) {
	if len(p.data) == 0 {
		// MB-WIRE-18: "a server MUST answer a batch request without parts with 400".
		return nil, malformed("MB-WIRE-18", "Empty batch", 0, 0, "the batch content is empty")
	}
	at, err := p.firstDelimiter()
	if err != nil {
		return nil, err
	}
	var parts []Part
	for index := 0; ; index++ {
		next, closed, err := p.delimiterLine(at, index)
		if err != nil {
			return nil, err
		}
		if closed {
			if index == 0 {
				return nil, malformed("MB-WIRE-18", "Empty batch", 0, at,
					"the first delimiter is the close delimiter; a batch has at least one part")
			}
			return parts, nil
		}
		if index >= p.lim.MaxParts {
			return nil, overLimit(413, LimitMaxParts, int64(p.lim.MaxParts), "Too many parts",
				index, at, "part %d would exceed the limit of %d parts per batch; no part ran",
				index, p.lim.MaxParts)
		}
		part, delim, err := p.part(next, index)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
		at = delim
	}
}

// firstDelimiter finds the first line that begins with the dash-boundary. The preamble before
// it is ignored (MB-WIRE-9), bare LFs included, except that the dash-boundary after a bare LF
// is a delimiter line ended the wrong way (MB-WIRE-8).
func (p *envelopeParser) firstDelimiter() (int, *EnvelopeError) {
	for from := 0; from < len(p.data); {
		i := bytes.Index(p.data[from:], p.dash)
		if i < 0 {
			break
		}
		at := from + i
		switch {
		case at == 0:
			return 0, nil
		case p.data[at-1] == '\n' && at >= 2 && p.data[at-2] == '\r':
			return at, nil
		case p.data[at-1] == '\n':
			return 0, malformed("MB-WIRE-8", "Bare LF in a delimiter line", 0, at,
				"the delimiter line at byte %d follows a bare LF", at)
		}
		from = at + 1
	}
	// MB-WIRE-13: the content ends without the close delimiter (it has no delimiter at all).
	return 0, malformed("MB-WIRE-13", "Missing close delimiter", 0, len(p.data),
		"no line of the content begins with the dash-boundary %q", p.dash)
}

// delimiterLine checks the delimiter line whose dash-boundary starts at `at` and returns the
// offset after its CRLF and whether it was the close delimiter. partIndex is the index of the
// part the line opens or would open.
func (p *envelopeParser) delimiterLine(at, partIndex int) (int, bool, *EnvelopeError) {
	d := p.data
	j := at + len(p.dash)
	closed := bytes.HasPrefix(d[j:], []byte("--"))
	if closed {
		j += 2
	}
	// MB-WIRE-11: "accept transport padding (any number of SP and HTAB)".
	for j < len(d) && (d[j] == ' ' || d[j] == '\t') {
		j++
	}
	switch {
	case j == len(d):
		if closed {
			return j, true, nil
		}
		return 0, false, malformed("MB-WIRE-13", "Missing close delimiter", partIndex, len(d),
			"the content ends on a delimiter line that is not the close delimiter")
	case d[j] == '\r' && j+1 < len(d) && d[j+1] == '\n':
		return j + 2, closed, nil
	case d[j] == '\n':
		// MB-WIRE-8: "reject a message that uses a bare LF ... in a delimiter line".
		return 0, false, malformed("MB-WIRE-8", "Bare LF in a delimiter line", partIndex, at,
			"the delimiter line at byte %d ends with a bare LF", at)
	case d[j] == '\r':
		return 0, false, malformed("MB-WIRE-8", "Bare CR in a delimiter line", partIndex, at,
			"the delimiter line at byte %d has a bare CR", at)
	}
	// MB-WIRE-19: "reject a delimiter line that carries anything after the dash-boundary
	// other than transport padding".
	end := min(len(d), j+16)
	return 0, false, malformed("MB-WIRE-19", "Text after a boundary delimiter", partIndex, at,
		"the delimiter line at byte %d continues with %q", at, d[j:end])
}

// part reads one body part whose header section starts at h and returns it with the offset
// of the dash-boundary of the delimiter that ends it.
func (p *envelopeParser) part(h, index int) (Part, int, *EnvelopeError) {
	d := p.data
	part := Part{Index: index, Offset: h}
	i := h
	bodyStart := -1
	delim := -1
	for {
		// A line that begins with the dash-boundary right after a field line is not a
		// delimiter: the field line's CRLF cannot also begin the delimiter (spec 3.1 under
		// MB-WIRE-21), so the line lies inside the header section and fails as a field line
		// (MB-PART-11). A part without a body still has the CRLF CRLF before the delimiter.
		k := i
		for k < len(d) && d[k] != '\r' && d[k] != '\n' {
			k++
		}
		if k == len(d) || (d[k] == '\r' && k+1 == len(d)) {
			return part, 0, malformed("MB-WIRE-13", "Missing close delimiter", index, len(d),
				"the content ends inside the header section of part %d", index)
		}
		if d[k] == '\n' {
			return part, 0, malformed("MB-WIRE-8", "Bare LF in a part header section", index, i,
				"the header line at byte %d of part %d ends with a bare LF (%q)", i, index, d[i:k+1])
		}
		if d[k+1] != '\n' {
			return part, 0, malformed("MB-WIRE-8", "Bare CR in a part header section", index, i,
				"the header line at byte %d of part %d contains a bare CR", i, index)
		}
		if k == i {
			bodyStart = k + 2
			break
		}
		// The section's size counts its field lines with their CRLFs; the empty line that
		// ends it is not counted.
		if size := k + 2 - h; size > p.lim.MaxPartHeaderBytes {
			return part, 0, overLimit(431, LimitMaxPartHeaderBytes, int64(p.lim.MaxPartHeaderBytes),
				"Part header section too large", index, h,
				"the header section of part %d exceeds %d octets; no part ran",
				index, p.lim.MaxPartHeaderBytes)
		}
		if len(part.Fields) >= p.lim.MaxPartFields {
			// MB-LIMIT-5: a limit on field lines per part header section, answered 431.
			e := overLimit(431, LimitMaxPartFields, int64(p.lim.MaxPartFields),
				"Too many field lines in a part", index, h,
				"the header section of part %d has more than %d field lines; no part ran",
				index, p.lim.MaxPartFields)
			e.Requirement = "MB-LIMIT-5"
			return part, 0, e
		}
		f, err := parseFieldLine(d[i:k], i, index)
		if err != nil {
			return part, 0, err
		}
		part.Fields = append(part.Fields, f)
		i = k + 2
	}
	if bodyStart >= 0 {
		var err *EnvelopeError
		delim, err = p.bodyEnd(bodyStart, index)
		if err != nil {
			return part, 0, err
		}
		if end := delim - 2; end > bodyStart {
			part.Body = d[bodyStart:end]
		}
	}
	if int64(len(part.Body)) > p.lim.MaxPartBytes {
		return part, 0, overLimit(413, LimitMaxPartBytes, p.lim.MaxPartBytes, "Part too large",
			index, h, "the body of part %d has %d octets, over the limit of %d; no part ran",
			index, len(part.Body), p.lim.MaxPartBytes)
	}
	if err := checkContentLength(part); err != nil {
		return part, 0, err
	}
	return part, delim, nil
}

// bodyEnd finds the dash-boundary of the delimiter that ends a body starting at s. The
// empty line before the body ends with CRLF, so a body that is empty is directly followed by
// the dash-boundary.
func (p *envelopeParser) bodyEnd(s, index int) (int, *EnvelopeError) {
	d := p.data
	for from := s; from <= len(d); {
		i := bytes.Index(d[from:], p.dash)
		if i < 0 {
			break
		}
		q := from + i
		if d[q-1] == '\n' {
			if d[q-2] == '\r' {
				return q, nil
			}
			// A lenient parser would take this line for a delimiter (MB-WIRE-8, vector
			// body-contains-lf-delimiter).
			return 0, malformed("MB-WIRE-8", "Bare LF in a delimiter line", index+1, q,
				"the body of part %d has a line beginning with the dash-boundary after a bare LF at byte %d",
				index, q-1)
		}
		from = q + 1
	}
	return 0, malformed("MB-WIRE-13", "Missing close delimiter", index, len(d),
		"the content ends inside the body of part %d, without the close delimiter", index)
}

// parseFieldLine parses one field line (RFC 9112 §5):
//
//	field-line = field-name ":" OWS field-value OWS
//
// No whitespace may stand between the name and the colon, and no line may begin with
// whitespace (obs-fold) (MB-PART-11).
func parseFieldLine(line []byte, offset, index int) (Field, *EnvelopeError) {
	if line[0] == ' ' || line[0] == '\t' {
		return Field{}, malformed("MB-PART-11", "Obsolete line folding", index, offset,
			"the header line at byte %d of part %d begins with whitespace (%q)", offset, index, line)
	}
	colon := bytes.IndexByte(line, ':')
	if colon < 0 {
		return Field{}, malformed("MB-PART-11", "Header line without a colon", index, offset,
			"the header line at byte %d of part %d has no colon (%q)", offset, index, line)
	}
	name := string(line[:colon])
	if !isToken(name) {
		return Field{}, malformed("MB-PART-11", "Invalid field name", index, offset,
			"the field name %q at byte %d of part %d is not a token", name, offset, index)
	}
	value := trimOWS(string(line[colon+1:]))
	for i := 0; i < len(value); i++ {
		if !isFieldValueOctet(value[i]) {
			return Field{}, malformed("MB-PART-11", "Invalid field value", index, offset,
				"the value of %s at byte %d of part %d holds the octet %#02x", name, offset, index, value[i])
		}
	}
	return Field{Name: name, Value: value, Offset: offset}, nil
}

// checkContentLength enforces MB-WIRE-20 (one field line, 1*DIGIT) and MB-WIRE-17 (the value
// equals the body's length as the delimiter found it).
func checkContentLength(part Part) *EnvelopeError {
	var cl *Field
	for i := range part.Fields {
		f := &part.Fields[i]
		if !equalFold(f.Name, "Content-Length") {
			continue
		}
		if cl != nil {
			return malformed("MB-WIRE-20", "Repeated Content-Length", part.Index, f.Offset,
				"part %d carries a second Content-Length field line at byte %d", part.Index, f.Offset)
		}
		cl = f
		if !isDigits(f.Value) {
			return malformed("MB-WIRE-20", "Invalid Content-Length", part.Index, f.Offset,
				"the Content-Length of part %d is %q, not 1*DIGIT", part.Index, f.Value)
		}
	}
	if cl == nil {
		return nil
	}
	n, err := strconv.ParseUint(cl.Value, 10, 63)
	if err != nil || n != uint64(len(part.Body)) {
		return malformed("MB-WIRE-17", "Content-Length mismatch", part.Index, cl.Offset,
			"part %d declares Content-Length %s but its body has %d octets before the next delimiter",
			part.Index, cl.Value, len(part.Body))
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// equalFold compares ASCII field names case-insensitively.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
