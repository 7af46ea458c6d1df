// Test resources a conformance target may declare (spec/schemas/target.schema.json): a
// mirror that describes the request it received, a resource answering any status, one that
// answers late, and one that answers random octets.
package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

const (
	maxSleep       = 10 * time.Second
	maxRandomBytes = 16 << 20
)

func testResources(mux *http.ServeMux) {
	mux.HandleFunc("/mirror", originFormTarget(mirror))
	mux.HandleFunc("/code/{code}", statusCode)
	mux.HandleFunc("GET /sleep/{ms}", sleep)
	mux.HandleFunc("POST /sleep/{ms}", sleep)
	mux.HandleFunc("GET /bytes/{n}", randomBytes)
}

// mirror answers any method with the JSON description of MB-TEST-2: method, request target,
// the authority it was addressed to, its header fields as [name, value] pairs in the order
// received, and its content in body (valid UTF-8) or body_base64. Field values map one octet to
// one character.
func mirror(w http.ResponseWriter, r *http.Request) {
	ordered, ok := orderedFields(r)
	if !ok {
		ordered, ok = receivedFields(r.Context(), r.Method, r.RequestURI)
	}
	headers := [][2]string{}
	if ok {
		for _, f := range ordered {
			headers = append(headers, [2]string{f.Name, latin1(f.Value)})
		}
	} else {
		// The head is out of reach: fall back to net/http's map, sorted by name.
		names := make([]string, 0, len(r.Header))
		for n := range r.Header {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			for _, v := range r.Header[n] {
				headers = append(headers, [2]string{n, latin1(v)})
			}
		}
	}
	content, err := io.ReadAll(r.Body)
	if err != nil {
		plain(w, http.StatusBadRequest, "unreadable content\n")
		return
	}
	doc := map[string]any{
		"method":    r.Method,
		"target":    r.RequestURI,
		"authority": r.Host,
		"headers":   headers,
	}
	if utf8.Valid(content) {
		doc["body"] = string(content)
	} else {
		doc["body_base64"] = base64.StdEncoding.EncodeToString(content)
	}
	body, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
}

// statusCode answers with the status in its path, 200 to 599, without content for 204 and
// 304; any other code is 404 (MB-TEST-6).
func statusCode(w http.ResponseWriter, r *http.Request) {
	v := r.PathValue("code")
	code, err := strconv.Atoi(v)
	if err != nil || len(v) != 3 || code < 200 || code > 599 {
		plain(w, http.StatusNotFound, "no such status resource\n")
		return
	}
	if code == 204 || code == 304 {
		w.WriteHeader(code)
		return
	}
	plain(w, code, "status "+strconv.Itoa(code)+"\n")
}

// sleep answers 200 after the number of milliseconds in its path (at most maxSleep; 400
// above it), or not at all when the request is cancelled first.
func sleep(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.PathValue("ms"))
	if err != nil || ms < 0 || ms > int(time.Duration(1<<63-1)/time.Millisecond) { // would wrap below
		plain(w, http.StatusNotFound, "no such delay resource\n")
		return
	}
	d := time.Duration(ms) * time.Millisecond
	if d > maxSleep {
		// MB-TEST-7: "a 4xx status for any larger ms".
		plain(w, http.StatusBadRequest, "the longest delay is "+maxSleep.String()+"\n")
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		plain(w, http.StatusOK, "answered after "+d.String()+"\n")
	case <-r.Context().Done():
	}
}

// randomBytes answers exactly n random octets.
func randomBytes(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 || n > maxRandomBytes {
		plain(w, http.StatusNotFound, "no such random resource\n")
		return
	}
	b := make([]byte, n)
	_, _ = rand.Read(b)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	_, _ = w.Write(b)
}
