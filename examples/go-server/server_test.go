// HTTP-level tests of the server: what the conformance suite does not reach (atomic batches,
// Prefer spellings) and the framing corners it found.
package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = newServer(DefaultLimits, 2*time.Second)
	srv.Listener = tapListener{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// batchBody writes one part per "METHOD target" string, each without a body.
func batchBody(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		method, target, _ := strings.Cut(p, " ")
		b.WriteString("--B\r\nHttp-Method: " + method + "\r\nContent-Id: <" + target + ">\r\n\r\n\r\n")
	}
	b.WriteString("--B--\r\n")
	return b.String()
}

func postBatch(t *testing.T, srv *httptest.Server, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+batchPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "multipart/mixed; boundary=B")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// rawRequest sends octets on a fresh connection and returns the status line.
func rawRequest(t *testing.T, srv *httptest.Server, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, raw)
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 64)
	n, _ := io.ReadAtLeast(c, buf, 12)
	line, _, _ := strings.Cut(string(buf[:n]), "\r\n")
	return line
}

// An empty chunked body is no content: a GET with only the last chunk is a collection
// retrieval, not the 400 of MB-METHOD-3.
func TestCollectionRetrievalAcceptsEmptyChunkedBody(t *testing.T) {
	srv := newTestServer(t)
	head := "GET /shelf HTTP/1.1\r\nHost: x\r\nAccept: multipart/mixed\r\nTransfer-Encoding: chunked\r\n\r\n"
	if got := rawRequest(t, srv, head+"0\r\n\r\n"); got != "HTTP/1.1 200 OK" {
		t.Fatalf("empty chunked GET: %q", got)
	}
	if got := rawRequest(t, srv, head+"1\r\nx\r\n0\r\n\r\n"); got != "HTTP/1.1 400 Bad Request" {
		t.Fatalf("chunked GET with content: %q", got)
	}
}

func TestAtomicBatchRollsBack(t *testing.T) {
	srv := newTestServer(t)
	resp, body := postBatch(t, srv, batchBody("PUT /notes/t1", "GET /code/409", "GET /shelf/s1"),
		"Batch-Mode", "atomic")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, want := range []string{"Batch-Outcome: rolled-back", "Http-Status-Code: 409", "Batch-Outcome: skipped"} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
	r, err := http.Get(srv.URL + "/notes/t1")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 404 {
		t.Fatalf("rolled-back PUT left the member: GET answers %d", r.StatusCode)
	}
}

func TestPreferStopInAnySpelling(t *testing.T) {
	srv := newTestServer(t)
	for _, prefer := range []string{"batch-on-error=stop", `Batch-On-Error="STOP"`, "wait=1, BATCH-ON-ERROR=Stop"} {
		resp, body := postBatch(t, srv, batchBody("GET /code/404", "GET /shelf/s1"), "Prefer", prefer)
		if got := resp.Header.Get("Preference-Applied"); got != "batch-on-error=stop" {
			t.Errorf("%s: Preference-Applied %q", prefer, got)
		}
		if !strings.Contains(body, "Batch-Outcome: skipped") {
			t.Errorf("%s: the part after the failure ran", prefer)
		}
	}
	resp, body := postBatch(t, srv, batchBody("GET /code/404", "GET /shelf/s1"), "Prefer", "batch-on-error=halt")
	if resp.Header.Get("Preference-Applied") != "" || strings.Contains(body, "skipped") {
		t.Errorf("an unknown value was not ignored (MB-PROC-11)")
	}
}

func TestEchoKeepsStandaloneFieldOrder(t *testing.T) {
	srv := newTestServer(t)
	c, _ := net.Dial("tcp", srv.Listener.Addr().String())
	defer c.Close()
	_, _ = io.WriteString(c, "GET /mirror HTTP/1.1\r\nHost: x\r\nZ-Last: 1\r\nA-First: 2\r\nConnection: close\r\n\r\n")
	all, _ := io.ReadAll(c)
	want := `"headers":[["Host","x"],["Z-Last","1"],["A-First","2"],["Connection","close"]]`
	if !strings.Contains(string(all), want) {
		t.Fatalf("echo lost the order: %s", all)
	}
}

// A multipart/mixed batch whose parameters do not parse is a bad boundary (400, MB-WIRE-4),
// not an unsupported media type.
func TestMalformedBoundaryParameterIs400(t *testing.T) {
	srv := newTestServer(t)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+batchPath, strings.NewReader(batchBody("GET /shelf/s1")))
	req.Header.Set("Content-Type", "multipart/mixed; boundary=abc def")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
}
