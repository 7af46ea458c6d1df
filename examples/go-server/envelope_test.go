// Tests of the envelope parser and the part checks: every request vector under spec/examples,
// fed whole, and hand-written cases for the corners the vectors leave open.
package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const vectorDir = "../../spec/examples"

type vectorPart struct {
	Method         string      `json:"method"`
	Target         string      `json:"target"`
	ResolvedTarget string      `json:"resolved_target"`
	Fields         [][2]string `json:"fields"`
	BodyText       *string     `json:"body_text"`
	BodyBase64     *string     `json:"body_base64"`
	BodyLength     int         `json:"body_length"`
}

type vector struct {
	ID          string `json:"id"`
	Direction   string `json:"direction"`
	ContentType string `json:"content_type"`
	Context     struct {
		Authority string `json:"authority"`
		Target    string `json:"target"`
	} `json:"context"`
	Valid  bool           `json:"valid"`
	Limits map[string]int `json:"limits"`
	Expect struct {
		Parts []vectorPart `json:"parts"`
	} `json:"expect"`
	Error struct {
		Requirement string `json:"requirement"`
		Status      int    `json:"status"`
		PartIndex   *int   `json:"part_index"`
		ByteOffset  *int   `json:"byte_offset"`
	} `json:"error"`
}

// vectorLimits are the codec defaults the vectors are written against, with the vector's own
// limits applied.
func vectorLimits(v vector) Limits {
	lim := Limits{MaxParts: 10000, MaxBatchBytes: 64 << 20, MaxPartBytes: 16 << 20,
		MaxPartHeaderBytes: 8192, MaxPartFields: 100}
	for name, n := range v.Limits {
		switch name {
		case LimitMaxParts:
			lim.MaxParts = n
		case LimitMaxBatchBytes:
			lim.MaxBatchBytes = int64(n)
		case LimitMaxPartBytes:
			lim.MaxPartBytes = int64(n)
		case LimitMaxPartHeaderBytes:
			lim.MaxPartHeaderBytes = n
		case LimitMaxPartFields:
			lim.MaxPartFields = n
		}
	}
	return lim
}

// process runs a vector's content through the same steps as the batch endpoint: media type,
// batch size, envelope, part checks.
func process(v vector, content []byte) ([]SubRequest, *EnvelopeError) {
	mt, ok := parseMediaType(v.ContentType)
	if mt.typ != mediaMultipart {
		return nil, refusal(415, "MB-WIRE-2", "", "", "")
	}
	boundary, why := boundaryOf(mt)
	if why != "" || !ok {
		return nil, refusal(400, "MB-WIRE-4", "", "", why)
	}
	lim := vectorLimits(v)
	if int64(len(content)) > lim.MaxBatchBytes {
		return nil, overLimit(413, LimitMaxBatchBytes, lim.MaxBatchBytes, "", -1, -1, "")
	}
	parts, err := ParseEnvelope(content, boundary, lim)
	if err != nil {
		return nil, err
	}
	path, query, _ := strings.Cut(v.Context.Target, "?")
	bc := batchContext{host: v.Context.Authority, path: path, query: query, endpoint: path}
	var subs []SubRequest
	for _, p := range parts {
		sub, err := validatePart(p, bc)
		if err != nil {
			return nil, err
		}
		subs = append(subs, sub)
	}
	return subs, nil
}

func TestRequestVectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorDir, "*.request.json"))
	if len(files) == 0 {
		t.Skip("no vectors under " + vectorDir)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var v vector
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		content, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".http")
		if err != nil {
			t.Fatal(err)
		}
		t.Run(v.ID, func(t *testing.T) {
			subs, perr := process(v, content)
			if v.Valid {
				checkValid(t, v, subs, perr)
			} else {
				checkInvalid(t, v, perr)
			}
		})
	}
}

func checkValid(t *testing.T, v vector, subs []SubRequest, perr *EnvelopeError) {
	t.Helper()
	if perr != nil {
		t.Fatalf("rejected a valid vector: %v", perr)
	}
	if len(subs) != len(v.Expect.Parts) {
		t.Fatalf("found %d parts, want %d", len(subs), len(v.Expect.Parts))
	}
	for i, want := range v.Expect.Parts {
		got := subs[i]
		if got.Method != want.Method {
			t.Errorf("part %d method %q, want %q", i, got.Method, want.Method)
		}
		if got.ContentID != "<"+want.Target+">" {
			t.Errorf("part %d Content-Id %q, want <%s>", i, got.ContentID, want.Target)
		}
		if want.ResolvedTarget != "" && got.Target != want.ResolvedTarget {
			t.Errorf("part %d resolves to %q, want %q", i, got.Target, want.ResolvedTarget)
		}
		var fields [][2]string
		for _, f := range got.Fields {
			fields = append(fields, [2]string{f.Name, f.Value})
		}
		if len(fields) != len(want.Fields) {
			t.Errorf("part %d fields %q, want %q", i, fields, want.Fields)
		} else {
			for j := range fields {
				if fields[j] != want.Fields[j] {
					t.Errorf("part %d field %d is %q, want %q", i, j, fields[j], want.Fields[j])
				}
			}
		}
		if len(got.Body) != want.BodyLength {
			t.Errorf("part %d body has %d octets, want %d", i, len(got.Body), want.BodyLength)
		}
		if want.BodyText != nil && string(got.Body) != *want.BodyText {
			t.Errorf("part %d body %q, want %q", i, got.Body, *want.BodyText)
		}
		if want.BodyBase64 != nil {
			b, _ := base64.StdEncoding.DecodeString(*want.BodyBase64)
			if string(b) != string(got.Body) {
				t.Errorf("part %d body differs from body_base64", i)
			}
		}
	}
}

// sameFault lists requirements that name the same fault (MB-STATUS-13): content without any
// delimiter line is both without parts and without the close delimiter.
var sameFault = map[string]string{"MB-WIRE-18": "MB-WIRE-13", "MB-WIRE-13": "MB-WIRE-18"}

func checkInvalid(t *testing.T, v vector, perr *EnvelopeError) {
	t.Helper()
	if perr == nil {
		t.Fatalf("accepted an invalid vector; want %d %s", v.Error.Status, v.Error.Requirement)
	}
	if perr.Status != v.Error.Status {
		t.Errorf("status %d, want %d (%v)", perr.Status, v.Error.Status, perr)
	}
	if perr.Requirement != v.Error.Requirement && sameFault[perr.Requirement] != v.Error.Requirement {
		t.Errorf("requirement %s, want %s (%v)", perr.Requirement, v.Error.Requirement, perr)
	}
	if v.Error.PartIndex != nil && perr.PartIndex != *v.Error.PartIndex {
		t.Errorf("part_index %d, want %d (%v)", perr.PartIndex, *v.Error.PartIndex, perr)
	}
	if v.Error.ByteOffset != nil && perr.ByteOffset != *v.Error.ByteOffset {
		t.Errorf("byte_offset %d, want %d (%v)", perr.ByteOffset, *v.Error.ByteOffset, perr)
	}
}

// TestEnvelopeByteByByte feeds a valid envelope cut at every length: every prefix is either
// refused as incomplete or, once the close delimiter is in, parsed whole.
func TestEnvelopeByteByByte(t *testing.T) {
	content := "--B\r\nHttp-Method: GET\r\nContent-Id: <a>\r\n\r\n\r\n--B\r\n" +
		"Http-Method: PUT\r\nContent-Id: <b>\r\nContent-Length: 2\r\n\r\nhi\r\n--B--"
	for n := 0; n < len(content); n++ {
		parts, err := ParseEnvelope([]byte(content[:n]), "B", DefaultLimits)
		if err == nil {
			t.Fatalf("prefix of %d octets accepted with %d parts", n, len(parts))
		}
		if err.Status != 400 {
			t.Fatalf("prefix of %d octets: status %d", n, err.Status)
		}
	}
	parts, err := ParseEnvelope([]byte(content), "B", DefaultLimits)
	if err != nil || len(parts) != 2 || string(parts[1].Body) != "hi" || len(parts[0].Body) != 0 {
		t.Fatalf("whole content: %v, %d parts", err, len(parts))
	}
}

// TestEnvelopeTrailingGarbage checks that octets after the close delimiter's CRLF are an
// ignored epilogue, and that octets on the close delimiter line are refused.
func TestEnvelopeTrailingGarbage(t *testing.T) {
	base := "--B\r\nHttp-Method: GET\r\nContent-Id: <a>\r\n\r\n\r\n--B--"
	if _, err := ParseEnvelope([]byte(base+"\r\n\x00\xffany\nthing"), "B", DefaultLimits); err != nil {
		t.Fatalf("epilogue refused: %v", err)
	}
	if _, err := ParseEnvelope([]byte(base+" \t\r\n"), "B", DefaultLimits); err != nil {
		t.Fatalf("transport padding after the close delimiter refused: %v", err)
	}
	err := func() *EnvelopeError { _, e := ParseEnvelope([]byte(base+"x"), "B", DefaultLimits); return e }()
	if err == nil || err.Requirement != "MB-WIRE-19" || err.ByteOffset != strings.LastIndex(base, "--B--") {
		t.Fatalf("text after the close delimiter: %v", err)
	}
}

func TestEnvelopeCases(t *testing.T) {
	cases := []struct {
		name, content, requirement string
		status, parts              int
	}{
		{"header section without its empty line before the close delimiter",
			"--B\r\nHttp-Method: GET\r\nContent-Id: <a>\r\n--B--", "MB-WIRE-13", 400, 0},
		{"header section without its empty line before the next delimiter",
			"--B\r\nHttp-Method: GET\r\nContent-Id: <a>\r\n--B\r\nH: v\r\n\r\n\r\n--B--", "MB-PART-11", 400, 0},
		{"header section and the delimiter's own CRLF", "--B\r\nHttp-Method: GET\r\nContent-Id: <a>\r\n\r\n--B--", "", 0, 1},
		{"empty header section", "--B\r\n\r\n\r\n--B--", "", 0, 1},
		{"bare CR before the dash-boundary in a body is content",
			"--B\r\nH: v\r\n\r\nx\r--B\r\n--B--", "", 0, 1},
		{"bare LF before the dash-boundary in a body", "--B\r\nH: v\r\n\r\nx\n--B\r\n--B--", "MB-WIRE-8", 400, 0},
		{"bare LF before the first delimiter", "pre\n--B\r\nH: v\r\n\r\n\r\n--B--", "MB-WIRE-8", 400, 0},
		{"boundary prefix in a body", "--B\r\nH: v\r\n\r\nx\r\n--Bx\r\n--B--", "MB-WIRE-19", 400, 0},
		{"only a close delimiter", "--B--\r\n", "MB-WIRE-18", 400, 0},
		{"empty content", "", "MB-WIRE-18", 400, 0},
		{"no delimiter at all", "hello\r\n", "MB-WIRE-13", 400, 0},
		{"Content-Length with a sign", "--B\r\nContent-Length: +1\r\n\r\nx\r\n--B--", "MB-WIRE-20", 400, 0},
		{"Content-Length repeated", "--B\r\nContent-Length: 1\r\ncontent-length: 1\r\n\r\nx\r\n--B--", "MB-WIRE-20", 400, 0},
		{"Content-Length matches", "--B\r\nContent-Length: 4\r\n\r\nx\r\ny\r\n--B--", "", 0, 1},
		{"NUL in a field value", "--B\r\nH: a\x00b\r\n\r\n\r\n--B--", "MB-PART-11", 400, 0},
		{"obs-fold", "--B\r\nH: a\r\n b\r\n\r\n\r\n--B--", "MB-PART-11", 400, 0},
		{"space before the colon", "--B\r\nH : a\r\n\r\n\r\n--B--", "MB-PART-11", 400, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts, err := ParseEnvelope([]byte(c.content), "B", DefaultLimits)
			if c.requirement == "" {
				if err != nil || len(parts) != c.parts {
					t.Fatalf("got %v and %d parts, want %d parts", err, len(parts), c.parts)
				}
				return
			}
			if err == nil || err.Requirement != c.requirement || err.Status != c.status {
				t.Fatalf("got %v, want %d %s", err, c.status, c.requirement)
			}
		})
	}
}

func TestContentTypeBoundary(t *testing.T) {
	cases := []struct {
		value, boundary string
		multipart, ok   bool
	}{
		{"multipart/mixed; boundary=abc", "abc", true, true},
		{`Multipart/Mixed ; Boundary="a b:c"`, "a b:c", true, true},
		{"multipart/mixed; boundary=abc def", "", true, false},
		{`multipart/mixed; boundary="unterminated`, "", true, false},
		{"multipart/mixed; boundary=a; boundary=a", "", true, false},
		{"multipart/mixed", "", true, false},
		{"multipart/mixed (batch); boundary=abc", "", true, false},
		{"multipart/mixed x; boundary=abc", "", true, false},
		{"multipart/mixedx; boundary=abc", "abc", false, true},
		{"text/plain; boundary=abc", "abc", false, true},
	}
	for _, c := range cases {
		mt, ok := parseMediaType(c.value)
		if (mt.typ == mediaMultipart) != c.multipart {
			t.Errorf("%q: type %q", c.value, mt.typ)
			continue
		}
		b, why := boundaryOf(mt)
		if got := ok && why == ""; got != c.ok || (got && b != c.boundary) {
			t.Errorf("%q: boundary %q ok %v (%s), want %q ok %v", c.value, b, got, why, c.boundary, c.ok)
		}
	}
}

func TestLimits(t *testing.T) {
	lim := DefaultLimits
	lim.MaxParts, lim.MaxPartHeaderBytes, lim.MaxPartFields, lim.MaxPartBytes = 2, 18, 2, 4
	part := "--B\r\nA: 1\r\n\r\n\r\n"
	cases := []struct {
		name, content, limit string
		status, offset       int
	}{
		{"parts at the limit", part + part + "--B--", "", 0, 0},
		{"one part over", part + part + part + "--B--", LimitMaxParts, 413, 2 * len(part)},
		{"header section at the limit (18 octets of field lines)", "--B\r\nAAAAAAAAAAAAA: 1\r\n\r\n\r\n--B--", "", 0, 0},
		{"header section one octet over", "--B\r\nAAAAAAAAAAAAAA: 1\r\n\r\n\r\n--B--", LimitMaxPartHeaderBytes, 431, 5},
		{"field lines over", "--B\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n\r\n--B--", LimitMaxPartFields, 431, 5},
		{"body at the limit", "--B\r\n\r\n1234\r\n--B--", "", 0, 0},
		{"body over", "--B\r\n\r\n12345\r\n--B--", LimitMaxPartBytes, 413, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseEnvelope([]byte(c.content), "B", lim)
			if c.limit == "" {
				if err != nil {
					t.Fatalf("refused within the limits: %v", err)
				}
				return
			}
			if err == nil || err.Limit != c.limit || err.Status != c.status || err.ByteOffset != c.offset {
				t.Fatalf("got %v, want %d %s at %d", err, c.status, c.limit, c.offset)
			}
		})
	}
}
