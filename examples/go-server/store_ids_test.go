package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func sendJSON(t *testing.T, method, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// A PUT may create a member under the name the id counter reaches next (MB-TEST-3): a later
// POST creates a new member beside it, under another name, and leaves it as the PUT wrote it.
func TestPostSkipsNamesPutCreated(t *testing.T) {
	srv := newTestServer(t)
	resp, _ := sendJSON(t, http.MethodPost, srv.URL+"/notes", `{"text":"first"}`)
	first := resp.Header.Get("Location")
	if resp.StatusCode != 201 || !strings.HasPrefix(first, "/notes/note-") {
		t.Fatalf("first POST: %d, Location %q", resp.StatusCode, first)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(first, "/notes/note-"))
	if err != nil {
		t.Fatalf("first POST's Location %q ends in no number", first)
	}
	taken := map[string]string{first: "the first POST"}
	for k := 1; k <= 4; k++ {
		loc := "/notes/note-" + itoa(n+k)
		if resp, _ := sendJSON(t, http.MethodPut, srv.URL+loc, `{"text":"put `+loc+`"}`); resp.StatusCode != 201 {
			t.Fatalf("PUT %s: %d", loc, resp.StatusCode)
		}
		taken[loc] = "a PUT"
	}
	for k := 0; k < 3; k++ {
		resp, _ := sendJSON(t, http.MethodPost, srv.URL+"/notes", `{"text":"post"}`)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != 201 || loc == "" {
			t.Fatalf("POST %d: %d, Location %q", k, resp.StatusCode, loc)
		}
		if by, ok := taken[loc]; ok {
			t.Fatalf("POST %d named %s, which %s created", k, loc, by)
		}
		taken[loc] = "another POST"
	}
	for loc, by := range taken {
		if by != "a PUT" {
			continue
		}
		if _, body := sendJSON(t, http.MethodGet, srv.URL+loc, ""); body != `{"text":"put `+loc+`"}` {
			t.Errorf("%s reads %q after the POSTs", loc, body)
		}
	}
}

// newID skips a name any collection holds, not only the one the POST goes to.
func TestNewIDSkipsMembersOfEveryCollection(t *testing.T) {
	s := newStore()
	next := "note-" + itoa(s.next+1)
	s.cols["shelf"].Members[next] = newMember(next, nil, "text/plain", s.cols["notes"].Members["welcome"].Modified)
	if got := s.newID(); got == next {
		t.Fatalf("newID handed out %s, which the shelf holds", got)
	}
}
