// Collection resources: members with validators, a writable sandbox, and collection retrieval
// as one multipart/mixed response (section 4.2, profile collection-get).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

type collections struct{ store *Store }

func (c collections) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /shelf", c.retrieve("shelf"))
	mux.HandleFunc("GET /shelf/{id}", c.member("shelf"))
	mux.HandleFunc("GET /notes", c.retrieve("notes"))
	mux.HandleFunc("POST /notes", c.create("notes"))
	mux.HandleFunc("GET /notes/{id}", c.member("notes"))
	mux.HandleFunc("PUT /notes/{id}", c.replace("notes"))
	mux.HandleFunc("DELETE /notes/{id}", c.remove("notes"))
	mux.HandleFunc("GET /empty-set", c.retrieve("empty-set"))
}

// hasContent reports whether a request carries at least one octet of content. A chunked
// request whose only chunk is the last one has none (RFC 9112 §7.1), so it reads one octet
// rather than trust the framing fields.
func hasContent(r *http.Request) bool {
	if r.ContentLength > 0 {
		return true
	}
	if r.Body == nil || r.Body == http.NoBody {
		return false
	}
	var one [1]byte
	n, _ := io.ReadFull(r.Body, one[:])
	return n > 0
}

func plain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text)
}

func validators(h http.Header, etag string, mod time.Time) {
	h.Set("ETag", etag)
	h.Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
}

func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func (c collections) member(col string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m := c.store.get(col, r.PathValue("id"))
		if m == nil {
			plain(w, http.StatusNotFound, "no such member\n")
			return
		}
		if st := precondition(r, m.ETag, m.Modified, true); st != 0 {
			validators(w.Header(), m.ETag, m.Modified)
			w.WriteHeader(st)
			return
		}
		validators(w.Header(), m.ETag, m.Modified)
		w.Header().Set("Content-Type", m.ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(m.Body)))
		_, _ = w.Write(m.Body)
	}
}

func contentType(r *http.Request) string {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

func (c collections) create(col string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			plain(w, http.StatusBadRequest, "unreadable content\n")
			return
		}
		m := newMember(c.store.newID(), body, contentType(r), time.Now())
		c.store.put(col, m)
		c.created(w, col, m)
	}
}

// conditions puts in front of the routes the preconditions that concern a collection as a
// whole, which neither the POST handler nor the retrieval sees:
//   - the target of a POST is the collection itself (RFC 9110 §9.3.3), which has a current
//     representation, so If-None-Match: * is false (§13.1.2) and so is an If-Match naming none
//     of its tags (§13.1.1): 412, and nothing is created (MB-PROC-9 for a part). The tags are
//     those of the representation a GET with the same Accept selects;
//   - a collection without members has no modification date (MB-METHOD-5 takes it from the
//     members), so If-Modified-Since and If-Unmodified-Since are ignored (§13.1.3, §13.1.4)
//     rather than compared with the zero time: an empty collection stays 204 (MB-STATUS-11).
func (c collections) conditions(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		members, ok := c.store.list(r.URL.Path[min(1, len(r.URL.Path)):])
		if !ok {
			mux.ServeHTTP(w, r)
			return
		}
		if len(members) == 0 {
			r = r.Clone(r.Context())
			r.Header.Del("If-Modified-Since")
			r.Header.Del("If-Unmodified-Since")
		}
		// Only where a POST is routed: elsewhere it is 405 whatever its conditions (§13.2.1).
		if _, pattern := mux.Handler(r); r.Method == http.MethodPost && pattern == "POST "+r.URL.Path {
			kind := "json"
			if negotiate(r.Header.Values("Accept"), []string{"application/json", mediaMultipart}) == mediaMultipart {
				kind = "multipart"
			}
			sum, latest := aggregate(kind, members)
			if st := precondition(r, `"`+kind[:1]+sum[:24]+`"`, latest, true); st != 0 {
				w.WriteHeader(st)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// created answers 201 with the new member's URI in Location (MB-RESP-7 for parts).
func (c collections) created(w http.ResponseWriter, col string, m *Member) {
	href := "/" + col + "/" + m.ID
	validators(w.Header(), m.ETag, m.Modified)
	w.Header().Set("Location", href)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"id":"`+m.ID+`","href":"`+href+`"}`)
}

// replace is PUT: it replaces a member, or creates it (201) when absent.
func (c collections) replace(col string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !validID(id) {
			plain(w, http.StatusBadRequest, "member ids are 1-64 of A-Z a-z 0-9 - _\n")
			return
		}
		old := c.store.get(col, id)
		var st int
		if old != nil {
			st = precondition(r, old.ETag, old.Modified, true)
		} else {
			st = precondition(r, "", time.Time{}, false)
		}
		if st != 0 {
			w.WriteHeader(st)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			plain(w, http.StatusBadRequest, "unreadable content\n")
			return
		}
		m := newMember(id, body, contentType(r), time.Now())
		if c.store.put(col, m) {
			c.created(w, col, m)
			return
		}
		validators(w.Header(), m.ETag, m.Modified)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (c collections) remove(col string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m := c.store.get(col, r.PathValue("id"))
		if m == nil {
			plain(w, http.StatusNotFound, "no such member\n")
			return
		}
		if st := precondition(r, m.ETag, m.Modified, true); st != 0 {
			w.WriteHeader(st)
			return
		}
		c.store.remove(col, m.ID)
		w.WriteHeader(http.StatusNoContent)
	}
}

// aggregate is the validator of a whole collection: a hash of its members' ids and entity
// tags in order, so it changes when a member is added, removed, reordered or changed.
func aggregate(kind string, members []*Member) (string, time.Time) {
	h := sha256.New()
	_, _ = io.WriteString(h, kind)
	var latest time.Time
	for _, m := range members {
		_, _ = io.WriteString(h, "\x00"+m.ID+"\x00"+m.ETag)
		if m.Modified.After(latest) {
			latest = m.Modified
		}
		// MB-METHOD-7: each multipart part carries its member's Last-Modified, so the date is
		// hashed too: a member rewritten with the same content changes the octets and the tag.
		_, _ = io.WriteString(h, "\x00"+m.Modified.UTC().Format(http.TimeFormat))
	}
	return hex.EncodeToString(h.Sum(nil)), latest
}

// retrieve is GET on a collection: multipart/mixed when the client asks for it, JSON
// otherwise.
func (c collections) retrieve(col string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if hasContent(r) {
			// MB-METHOD-3: "answer 400 to a GET request for a collection retrieval ... that
			// has content".
			writeProblem(w, refusal(400, "MB-METHOD-3", "content-on-get", "Content on GET",
				"a GET on a collection carries no content"))
			return
		}
		members, _ := c.store.list(col)
		w.Header().Set("Vary", "Accept")
		if negotiate(r.Header.Values("Accept"), []string{"application/json", mediaMultipart}) == mediaMultipart {
			c.retrieveMultipart(w, r, col, members)
			return
		}
		sum, latest := aggregate("json", members)
		etag := `"j` + sum[:24] + `"`
		if st := precondition(r, etag, latest, true); st != 0 {
			validators(w.Header(), etag, latest)
			w.WriteHeader(st)
			return
		}
		list := make([]map[string]string, 0, len(members))
		for _, m := range members {
			list = append(list, map[string]string{"id": m.ID, "href": "/" + col + "/" + m.ID})
		}
		body, _ := json.Marshal(map[string]any{"members": list})
		validators(w.Header(), etag, latest)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}
}

// retrieveMultipart answers a collection retrieval (MB-METHOD-4, MB-METHOD-6, MB-STATUS-7,
// MB-STATUS-11). Its boundary is derived from the collection's state, so every octet of the
// representation is a function of that state and the aggregate ETag may be strong
// (MB-METHOD-7).
func (c collections) retrieveMultipart(w http.ResponseWriter, r *http.Request, col string, members []*Member) {
	sum, latest := aggregate("multipart", members)
	etag := `"m` + sum[:24] + `"`
	h := w.Header()
	h.Set("ETag", etag)
	if len(members) > 0 {
		// MB-METHOD-5: the latest Last-Modified among the members, which all have one.
		h.Set("Last-Modified", latest.UTC().Format(http.TimeFormat))
	}
	if st := precondition(r, etag, latest, true); st != 0 {
		w.WriteHeader(st)
		return
	}
	if len(members) == 0 {
		// MB-STATUS-11: an existing collection without members is 204 No Content.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	boundary := ""
	for n := 0; ; n++ {
		boundary = "coll-" + sum[:40] + "-" + strconv.Itoa(n)
		clear := true
		for _, m := range members {
			if collides(m.Body, []byte("--"+boundary)) {
				clear = false
			}
		}
		if clear {
			break
		}
	}
	h.Set("Content-Type", "multipart/mixed; boundary="+boundary)
	h.Set("Cache-Control", "no-transform")
	w.WriteHeader(http.StatusOK)
	mw := &multipartWriter{w: w, boundary: boundary}
	for _, m := range members {
		// MB-METHOD-6: the Content-Id is resolvable against the collection's URI: from
		// /shelf, "shelf/s1" resolves to /shelf/s1.
		mw.writePart([][2]string{
			{"Content-Id", "<" + col + "/" + m.ID + ">"},
			{"Http-Status-Code", "200"},
			{"Content-Type", m.ContentType},
			{"ETag", m.ETag},
			{"Last-Modified", m.Modified.UTC().Format(http.TimeFormat)},
		}, m.Body)
	}
	mw.close()
}
