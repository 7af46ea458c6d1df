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
	mux.HandleFunc("/mirror", mirror)
	mux.HandleFunc("/code/{code}", statusCode)
	mux.HandleFunc("GET /sleep/{ms}", sleep)
	mux.HandleFunc("POST /sleep/{ms}", sleep)
	mux.HandleFunc("GET /bytes/{n}", randomBytes)
}

// mirror answers any method with a JSON description of the request: method, request target,
// the authority it was addressed to, its header fields as [name, value] pairs and its content.
// A part's fields come in the order and the case they were sent; a standalone request's in the
// order net/http keeps them (sorted by canonical name).
func mirror(w http.ResponseWriter, r *http.Request) {
	fields := [][2]string{}
	if ordered, ok := orderedFields(r); ok {
		for _, f := range ordered {
			fields = append(fields, [2]string{f.Name, f.Value})
		}
	} else {
		names := make([]string, 0, len(r.Header))
		for n := range r.Header {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			for _, v := range r.Header[n] {
				fields = append(fields, [2]string{n, v})
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
		"fields":    fields,
	}
	if utf8.Valid(content) {
		doc["content"] = string(content)
	} else {
		doc["content_base64"] = base64.StdEncoding.EncodeToString(content)
	}
	body, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
}

// statusCode answers with the status in its path. An interim status (1xx other than 101) is
// sent as an interim response before a final 200.
func statusCode(w http.ResponseWriter, r *http.Request) {
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 100 || code > 599 || code == 101 {
		plain(w, http.StatusNotFound, "no such status resource\n")
		return
	}
	if code < 200 {
		w.WriteHeader(code)
		plain(w, http.StatusOK, "after interim status "+strconv.Itoa(code)+"\n")
		return
	}
	if code == 204 || code == 304 {
		w.WriteHeader(code)
		return
	}
	plain(w, code, "status "+strconv.Itoa(code)+"\n")
}

// sleep answers after the number of milliseconds in its path (at most maxSleep), or not at all
// when the request is cancelled first.
func sleep(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.PathValue("ms"))
	if err != nil || ms < 0 {
		plain(w, http.StatusNotFound, "no such delay resource\n")
		return
	}
	d := min(time.Duration(ms)*time.Millisecond, maxSleep)
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
