// The in-memory store behind the collections: ordered members with a strong entity tag and a
// modification time each. A snapshot is cheap because members are never changed in place,
// only replaced, which is what lets an atomic batch undo its parts (MB-PROC-8).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// Member is one stored representation; a write replaces the whole value.
type Member struct {
	ID          string
	Body        []byte
	ContentType string
	ETag        string // strong entity tag, quoted
	Modified    time.Time
}

// Collection is an ordered set of members.
type Collection struct {
	Writable bool
	Order    []string
	Members  map[string]*Member
}

// Store holds every collection.
type Store struct {
	mu sync.Mutex
	// iso isolates atomic batches (MB-PROC-15): an atomic batch holds it exclusively from its
	// first part to its commit or roll-back; every other request, standalone or a part of a
	// batch that is not atomic, holds it shared, so none sees part of an atomic batch.
	iso  sync.RWMutex
	cols map[string]*Collection
	next int
}

type storeSnapshot struct {
	cols map[string]*Collection
	next int
}

func newMember(id string, body []byte, contentType string, mod time.Time) *Member {
	sum := sha256.Sum256(append([]byte(contentType+"\x00"), body...))
	return &Member{
		ID: id, Body: body, ContentType: contentType,
		ETag: `"` + hex.EncodeToString(sum[:10]) + `"`, Modified: mod.UTC().Truncate(time.Second),
	}
}

// newStore seeds a read-only shelf of three members, a writable notes collection with one,
// and a collection that stays empty.
func newStore() *Store {
	s := &Store{cols: map[string]*Collection{}, next: 1}
	base := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	shelf := &Collection{Members: map[string]*Member{}}
	for i, title := range []string{"Weaving the Web", "Architectural Styles", "Latency Numbers"} {
		id := "s" + string(rune('1'+i))
		body := []byte(`{"id":"` + id + `","title":"` + title + `"}`)
		shelf.Order = append(shelf.Order, id)
		shelf.Members[id] = newMember(id, body, "application/json", base.Add(time.Duration(i)*time.Hour))
	}
	notes := &Collection{Writable: true, Members: map[string]*Member{}}
	notes.Order = []string{"welcome"}
	notes.Members["welcome"] = newMember("welcome", []byte("a note\n"), "text/plain; charset=utf-8", base)
	s.cols["shelf"] = shelf
	s.cols["notes"] = notes
	s.cols["empty-set"] = &Collection{Members: map[string]*Member{}}
	return s
}

func (s *Store) snapshot() storeSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := storeSnapshot{cols: map[string]*Collection{}, next: s.next}
	for name, c := range s.cols {
		cp := &Collection{Writable: c.Writable, Order: append([]string(nil), c.Order...),
			Members: make(map[string]*Member, len(c.Members))}
		for id, m := range c.Members {
			cp.Members[id] = m
		}
		snap.cols[name] = cp
	}
	return snap
}

func (s *Store) restore(snap storeSnapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cols, s.next = snap.cols, snap.next
}

// list returns a collection's members in order, and whether the collection exists.
func (s *Store) list(col string) ([]*Member, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cols[col]
	if !ok {
		return nil, false
	}
	out := make([]*Member, 0, len(c.Order))
	for _, id := range c.Order {
		out = append(out, c.Members[id])
	}
	return out, true
}

func (s *Store) get(col, id string) *Member {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.cols[col]; ok {
		return c.Members[id]
	}
	return nil
}

// put stores m under its id, appending it when new; it reports whether it was created.
func (s *Store) put(col string, m *Member) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cols[col]
	_, existed := c.Members[m.ID]
	if !existed {
		c.Order = append(c.Order, m.ID)
	}
	c.Members[m.ID] = m
	return !existed
}

func (s *Store) remove(col, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cols[col]
	if _, ok := c.Members[id]; !ok {
		return false
	}
	delete(c.Members, id)
	for i, o := range c.Order {
		if o == id {
			c.Order = append(c.Order[:i:i], c.Order[i+1:]...)
			break
		}
	}
	return true
}

// newID returns a member id that has not been used in this process and that names no member
// of any collection: a PUT may have created a member under the name the counter reaches next
// (MB-TEST-3 lets a PUT create a member it names), and a POST creates a new member, never
// replacing that one.
func (s *Store) newID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		s.next++
		id := "note-" + itoa(s.next)
		if !s.taken(id) {
			return id
		}
	}
}

// taken reports whether some collection has a member named id; s.mu is held.
func (s *Store) taken(id string) bool {
	for _, c := range s.cols {
		if _, ok := c.Members[id]; ok {
			return true
		}
	}
	return false
}
