// A tap on each connection that keeps the most recent octets it read, so that the echo
// resource can report a standalone request's header fields in the order and case they were
// received (MB-TEST-2); net/http itself keeps them in a map. Sub-requests need no tap: their
// fields come from the part, in order.
package main

import (
	"bytes"
	"context"
	"net"
	"sync"
)

// tapKeep bounds the octets a tap keeps per connection: a request head is at most the
// server's MaxHeaderBytes (32 KiB) and net/http reads at most 4 KiB past it before a handler
// runs, so the head of the request being handled is always within the last 256 KiB.
const tapKeep = 256 << 10

type tapListener struct{ net.Listener }

func (l tapListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &tapConn{Conn: c}, nil
}

type tapConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.buf = append(c.buf, p[:n]...)
	if len(c.buf) > tapKeep {
		c.buf = append([]byte(nil), c.buf[len(c.buf)-tapKeep:]...)
	}
	c.mu.Unlock()
	return n, err
}

type tapKey struct{}

// withTap is the http.Server ConnContext hook that makes a connection's tap reachable.
func withTap(ctx context.Context, c net.Conn) context.Context {
	if t, ok := c.(*tapConn); ok {
		return context.WithValue(ctx, tapKey{}, t)
	}
	return ctx
}

// receivedFields finds the first request head after the last one it found on this connection
// whose request line is `method SP target SP HTTP/1.x`, and returns its field lines in order.
func receivedFields(ctx context.Context, method, target string) ([]Field, bool) {
	t, ok := ctx.Value(tapKey{}).(*tapConn)
	if !ok {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	line := []byte(method + " " + target + " HTTP/1.")
	i, first := -1, -1
	for from := 0; from < len(t.buf); {
		j := bytes.Index(t.buf[from:], line)
		if j < 0 {
			break
		}
		if first < 0 {
			first = from + j
		}
		if from+j == 0 || t.buf[from+j-1] == '\n' {
			i = from + j
			break
		}
		from += j + 1
	}
	if i < 0 {
		// On a kept-alive connection a request line follows the previous request's content,
		// which need not end with a line break.
		i = first
	}
	if i < 0 {
		return nil, false
	}
	end := bytes.Index(t.buf[i:], []byte("\r\n\r\n"))
	if end < 0 {
		return nil, false
	}
	head := t.buf[i : i+end]
	t.buf = t.buf[i+end+4:]
	var fields []Field
	lines := bytes.Split(head, []byte("\r\n"))
	for _, l := range lines[1:] {
		name, value, found := bytes.Cut(l, []byte(":"))
		if !found {
			return nil, false
		}
		fields = append(fields, Field{Name: string(name), Value: trimOWS(string(value)), Offset: -1})
	}
	return fields, true
}
