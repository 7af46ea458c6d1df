package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const epoch = "Thu, 01 Jan 1970 00:00:00 GMT"

func send(t *testing.T, srv *httptest.Server, method, path, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The target of a POST is the collection, which exists: If-None-Match: * and an If-Match
// naming none of its tags are false, so the POST is 412 and creates nothing, alone and in a
// part (RFC 9110 §13.1.1, §13.1.2; MB-PROC-9). If-Match: * holds.
func TestConditionalPostToCollection(t *testing.T) {
	srv := newTestServer(t)
	_, before := send(t, srv, http.MethodGet, "/notes", "")
	for _, c := range []struct {
		name, value string
		want        int
	}{
		{"If-None-Match", "*", 412},
		{"If-Match", `"no-such-tag"`, 412},
		{"If-Match", "*", 201},
	} {
		st, _ := send(t, srv, http.MethodPost, "/notes", "refused", "Content-Type", "text/plain", c.name, c.value)
		if st != c.want {
			t.Errorf("POST /notes with %s: %s answered %d, want %d", c.name, c.value, st, c.want)
		}
	}
	_, after := send(t, srv, http.MethodGet, "/notes", "")
	if strings.Count(after, `"id"`) != strings.Count(before, `"id"`)+1 {
		t.Errorf("the refused POSTs changed the collection: %s, then %s", before, after)
	}
	part := "--B\r\nHttp-Method: POST\r\nContent-Id: </notes>\r\nIf-None-Match: *\r\n" +
		"Content-Type: text/plain\r\n\r\nrefused\r\n--B--\r\n"
	if _, body := postBatch(t, srv, part); !strings.Contains(body, "Http-Status-Code: 412") {
		t.Errorf("POST part with If-None-Match: * not 412:\n%s", body)
	}
	// A collection without a POST route answers 405 whatever the conditions (§13.2.1).
	if st, _ := send(t, srv, http.MethodPost, "/shelf", "x", "If-None-Match", "*"); st != 405 {
		t.Errorf("POST /shelf with If-None-Match: * answered %d, want 405", st)
	}
}

// A collection without members has no Last-Modified, so If-Modified-Since is ignored and
// the retrieval stays 204, alone and in a part (RFC 9110 §13.1.3; MB-STATUS-11).
func TestEmptyCollectionIgnoresDates(t *testing.T) {
	srv := newTestServer(t)
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		for _, field := range []string{"If-Modified-Since", "If-Unmodified-Since"} {
			st, _ := send(t, srv, method, "/empty-set", "", "Accept", "multipart/mixed", field, epoch)
			if st != 204 {
				t.Errorf("%s /empty-set with %s: %s answered %d, want 204", method, field, epoch, st)
			}
		}
	}
	part := "--B\r\nHttp-Method: GET\r\nContent-Id: </empty-set>\r\nAccept: multipart/mixed\r\n" +
		"If-Modified-Since: " + epoch + "\r\n\r\n\r\n--B--\r\n"
	if _, body := postBatch(t, srv, part); !strings.Contains(body, "Http-Status-Code: 204") {
		t.Errorf("GET part of the empty collection with If-Modified-Since not 204:\n%s", body)
	}
	// A collection with members still compares its dates.
	st, _ := send(t, srv, http.MethodGet, "/shelf", "", "Accept", "multipart/mixed", "If-Unmodified-Since", epoch)
	if st != 412 {
		t.Errorf("GET /shelf with If-Unmodified-Since: %s answered %d, want 412", epoch, st)
	}
}
