"""Connections kept for the next request, as HTTP/1.1 clients keep them.

Theory of operation: HTTP/1.1 connections persist unless a side says otherwise (RFC 9112
§9.3), and real clients send many requests over one. A server that wrongly carries state from
one request to the next on a connection (a boundary chosen once, the first request's
credentials, a parser that does not reset) shows it only to a client that reuses connections,
so the suite reuses them for its ordinary traffic.

`KeptConnection` holds one socket to one origin. `exchange` writes a request and reads one
response with `http.read_response`; the connection is closed after a response that does not
let it persist (`Response.persistent`: HTTP/1.0, `Connection: close`, content read to the
close), after any error, and before a request when octets the last response did not account
for are waiting (noted on the exchange). The next exchange then opens a new connection.

Retry rule: a server may close a kept connection while it is idle (RFC 9112 §9.3.1: "A client,
server, or proxy MAY close the transport connection at any time"), which the client sees only
when it uses it. So when the write fails or the read ends (EOF or reset) with no octet received
on a connection that had already carried an exchange, the request is sent once more on a new
connection. Never otherwise: not after any octet of a response arrived (the server saw the
request), not on a new connection, not after a timeout.

`keeps` decides which requests ride a kept connection: only one whose framing is plain by a
strict parse (one HTTP/1.1 request, a Host field, a body framed by one exact Content-Length or
none, no field that manages the connection). A request the suite made odd on purpose goes on a
connection of its own, where its oddity cannot corrupt the next request.

`KeptConnections` is the set of kept connections of one check to one origin: an idle one is
reused, one in use by another thread of the check is never shared (a second is opened).
"""

from __future__ import annotations

import re
import select
import socket
import ssl
import threading
from dataclasses import replace

from mixbatch_conformance.transport.http import (
    DEFAULT_TIMEOUT,
    Exchange,
    ResponseError,
    connect,
    drain,
    method_of,
    read_response,
)

__all__ = ["READ_SIZE", "RESENT", "KeptConnection", "KeptConnections", "keeps"]

#: Octets read from the socket at a time.
READ_SIZE = 65536
#: The note on an exchange sent again because the kept connection had been closed idle.
RESENT = "sent again on a new connection: the kept one was closed before any answer"
#: Errors that say the peer closed or reset the connection (no timeout among them).
_CLOSED = (
    ConnectionResetError,
    ConnectionAbortedError,
    BrokenPipeError,
    ssl.SSLEOFError,
    ssl.SSLZeroReturnError,
)

# RFC 9110 §5.6.2: token = 1*tchar.
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
# RFC 9112 §3: request-line = method SP request-target SP HTTP-version, HTTP/1.1 only here.
_REQUEST_LINE = re.compile(rb"(" + _TOKEN + rb") [!-~]+ HTTP/1\.1")
# RFC 9112 §5: field-line = field-name ":" OWS field-value OWS; no obs-fold, no CTL but HTAB.
_FIELD_LINE = re.compile(rb"(" + _TOKEN + rb"):[ \t]*([^\x00-\x08\x0a-\x1f\x7f]*?)[ \t]*")
_LENGTH = re.compile(rb"0|[1-9][0-9]*")
#: Fields that frame the body otherwise or manage the connection: a request carrying one was
#: made so on purpose, and goes on a connection of its own.
_CONNECTION_FIELDS = frozenset(
    {
        b"transfer-encoding",
        b"connection",
        b"expect",
        b"upgrade",
        b"keep-alive",
        b"proxy-connection",
    }
)


def keeps(request: bytes) -> bool:
    """Whether `request` is one plainly framed HTTP/1.1 request, fit for a kept connection."""
    # Indexes, not a partition: a partition would copy the content, tens of MiB for the
    # batches the limit checks send.
    end = request.find(b"\r\n\r\n")
    if end < 0:
        return False
    content_length = len(request) - end - 4
    line, *fields = request[:end].split(b"\r\n")
    m = _REQUEST_LINE.fullmatch(line)
    if m is None or m.group(1) == b"CONNECT":
        return False
    hosts = 0
    lengths: list[bytes] = []
    for field_line in fields:
        fm = _FIELD_LINE.fullmatch(field_line)
        if fm is None:
            return False
        name = fm.group(1).lower()
        if name in _CONNECTION_FIELDS:
            return False
        if name == b"host":
            hosts += 1
        elif name == b"content-length":
            lengths.append(fm.group(2))
    if hosts != 1 or len(lengths) > 1:
        return False
    if lengths:
        return _LENGTH.fullmatch(lengths[0]) is not None and int(lengths[0]) == content_length
    return content_length == 0


class _SocketReader:
    """Buffered reads from a socket, whose buffer can be seen (a BufferedReader hides it)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        data = self.sock.recv(READ_SIZE)
        if not data:
            self.eof = True
            return False
        self.buffer += data
        return True

    def _take(self, n: int) -> bytes:
        out = bytes(self.buffer[:n])
        del self.buffer[:n]
        return out

    def readline(self, size: int = -1, /) -> bytes:
        start = 0
        while True:
            i = self.buffer.find(b"\n", start)
            if i >= 0 and (size < 0 or i < size):
                return self._take(i + 1)
            if 0 <= size <= len(self.buffer):
                return self._take(size)
            start = len(self.buffer)
            if not self._fill():
                return self._take(len(self.buffer))

    def read(self, size: int = -1, /) -> bytes:
        while (size < 0 or len(self.buffer) < size) and self._fill():
            pass
        return self._take(len(self.buffer) if size < 0 else size)

    def read1(self, size: int = -1, /) -> bytes:
        if not self.buffer:
            self._fill()
        return self._take(len(self.buffer) if size < 0 else size)


class KeptConnection:
    """One connection to host:port kept for the next request (a new one when it closed)."""

    def __init__(
        self,
        host: str,
        port: int,
        timeout: float = DEFAULT_TIMEOUT,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self.tls = tls
        self._sock: socket.socket | None = None
        self._reader: _SocketReader | None = None
        #: Exchanges the open connection has carried.
        self.carried = 0
        #: Connections opened so far.
        self.opened = 0

    @property
    def is_open(self) -> bool:
        return self._sock is not None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = None
        self._reader = None
        self.carried = 0

    def exchange(self, request: bytes, timeout: float | None = None) -> Exchange:
        """Send `request` on the kept connection (or a new one) and read one response, waiting
        up to `timeout` seconds (the connection's own when None) for each read.

        Same contract as `http.exchange`: a response that is not HTTP/1.1 or no response at all
        is an Exchange with `error`; TargetUnreachable and TimeoutError propagate only when no
        connection can be made."""
        notes = self._check_idle()
        reused = self._sock is not None
        ex, closed_idle = self._send(request, reused, timeout)
        if closed_idle:
            ex, _ = self._send(request, False, timeout)
            notes.append(RESENT)
        return replace(ex, notes=(*ex.notes, *notes)) if notes else ex

    def _check_idle(self) -> list[str]:
        """Close the connection if the server closed it, or sent octets no response claimed."""
        sock, reader = self._sock, self._reader
        if sock is None or reader is None:
            return []
        stale = bytes(reader.buffer)
        if not stale:
            pending = sock.pending() if isinstance(sock, ssl.SSLSocket) else 0
            readable, _, _ = select.select([sock], [], [], 0)
            if not readable and not pending:
                return []
            try:
                sock.setblocking(False)
                stale = sock.recv(READ_SIZE)
            except (BlockingIOError, ssl.SSLWantReadError):
                return []
            except OSError:
                stale = b""
            finally:
                sock.settimeout(self.timeout)
        self.close()
        if not stale:
            return []
        return [
            f"{len(stale)} octets arrived after the previous response ended ({stale[:60]!r}); "
            "this request went on a new connection"
        ]

    def _open(self) -> tuple[socket.socket, _SocketReader]:
        sock = connect(self.host, self.port, self.timeout, self.tls)
        self._sock, self._reader = sock, _SocketReader(sock)
        self.carried = 0
        self.opened += 1
        return sock, self._reader

    def _send(
        self, request: bytes, reused: bool, timeout: float | None = None
    ) -> tuple[Exchange, bool]:
        """One exchange; the flag says the kept connection had been closed idle (send again)."""
        if self._sock is None or self._reader is None:
            sock, reader = self._open()
        else:
            sock, reader = self._sock, self._reader
        sock.settimeout(self.timeout if timeout is None else timeout)
        self.carried += 1
        number = self.carried
        try:
            sock.sendall(request)
        except OSError as exc:
            # A server may answer early (413) and close, or have closed while idle: read what
            # it said, if anything.
            sent: str | None = f"send failed: {exc}"
        else:
            sent = None
        try:
            resp = read_response(reader, method_of(request))
        except (ResponseError, OSError) as exc:
            received: bytes = getattr(exc, "received", b"")
            closed = isinstance(exc, (ResponseError, *_CLOSED)) or sent is not None
            if reused and not received and closed:
                self.close()
                return Exchange(request, None, sent or str(exc)), True
            if isinstance(exc, ResponseError):
                # Keep what follows the broken line too: the report saves all of it.
                received += drain(sock, reader)
            self.close()
            error = sent or f"{type(exc).__name__}: {exc}"
            return Exchange(request, None, error, raw=received, kept=number), False
        if not resp.persistent:
            self.close()
        return Exchange(request, resp, kept=number), False


class KeptConnections:
    """The kept connections of one check to one origin, safe to use from several threads."""

    def __init__(
        self,
        host: str,
        port: int,
        timeout: float = DEFAULT_TIMEOUT,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.host, self.port, self.timeout, self.tls = host, port, timeout, tls
        self._idle: list[KeptConnection] = []
        self._lock = threading.Lock()
        self._closed = False

    def exchange(self, request: bytes, timeout: float | None = None) -> Exchange:
        """Send `request` on the connection used last, or a new one when all are in use;
        `timeout` as `KeptConnection.exchange` takes it."""
        with self._lock:
            conn = (
                self._idle.pop()
                if self._idle
                else KeptConnection(self.host, self.port, self.timeout, self.tls)
            )
        try:
            return conn.exchange(request, timeout)
        finally:
            with self._lock:
                if self._closed:
                    conn.close()
                else:
                    self._idle.append(conn)

    def close(self) -> None:
        """Close every connection; one in use is closed when its exchange ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
