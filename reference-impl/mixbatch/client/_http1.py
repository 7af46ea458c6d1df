"""A sans-IO HTTP/1.1 client connection that can pipeline, built from one h11 state machine per
exchange.

h11 models one request/response cycle at a time, and a client-side ``h11.Connection`` refuses a
second request before the first response is complete, which rules out pipelining (RFC 9112
§9.3.2). So each outstanding exchange gets its own ``h11.Connection``: it serialises its request
(the bytes are exactly what one connection would send) and parses its response. Bytes that
arrive past the end of one response (``trailing_data``) are the start of the next, and are fed to
the next exchange's machine. A transport only moves bytes:

    data = conn.send(requests)      -> write data
    conn.next_event()               -> Head | bytes | End | NEED_DATA
    NEED_DATA                       -> conn.receive_data(read())   (b"" at EOF)

Responses come back in request order, as RFC 9112 §9.3.2 requires of the server. Interim (1xx)
responses are dropped. ``keep_alive`` turns False once any response says the connection closes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Final

import h11

from mixbatch.codec import Fields

from ._errors import ConnectionLost

__all__ = ["NEED_DATA", "End", "Head", "Http1Connection", "HttpRequest"]


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One request to write: origin-form target, end-to-end fields (no Host), content."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""


@dataclass(frozen=True, slots=True)
class Head:
    """A final response's status line and header section."""

    status: int
    headers: Fields


@dataclass(frozen=True, slots=True)
class End:
    """The response content is complete; ``trailers`` are its trailer fields."""

    trailers: Fields


class _NeedData:
    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA: Final = _NeedData()

Event = Head | bytes | End | _NeedData

#: Fields the connection frames itself; a caller's copies would conflict with h11's.
_FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection"})


class Http1Connection:
    """The client side of one HTTP/1.1 connection to ``authority`` (``host:port``)."""

    def __init__(self, authority: str) -> None:
        self._authority = authority
        self._waiting: deque[h11.Connection] = deque()
        self._pending = b""  # bytes read before the exchange they belong to was at the front
        self._eof = False
        self.keep_alive = True

    @property
    def outstanding(self) -> int:
        """Requests written whose responses have not ended."""
        return len(self._waiting)

    def send(self, requests: list[HttpRequest]) -> bytes:
        """The octets of ``requests``, written back to back (pipelined when more than one)."""
        out: list[bytes] = []
        for request in requests:
            machine = h11.Connection(our_role=h11.CLIENT)
            headers = [("Host", self._authority)]
            headers += [(k, v) for k, v in request.headers if k.lower() not in _FRAMING]
            if request.body or request.method.upper() in ("POST", "PUT", "PATCH"):
                headers.append(("Content-Length", str(len(request.body))))
            chunks = [
                machine.send(
                    h11.Request(method=request.method, target=request.target, headers=headers)
                ),
                machine.send(h11.Data(data=request.body)) if request.body else b"",
                machine.send(h11.EndOfMessage()),
            ]
            out.extend(c for c in chunks if c)
            if not self._waiting and self._pending:
                machine.receive_data(self._pending)
                self._pending = b""
            self._waiting.append(machine)
        return b"".join(out)

    def receive_data(self, data: bytes) -> None:
        """Bytes read from the socket; ``b""`` means the peer closed its side."""
        if not data:
            self._eof = True
        if self._waiting:
            self._waiting[0].receive_data(data)
        else:
            self._pending += data

    def next_event(self) -> Event:
        """The next event of the response at the front of the queue."""
        if not self._waiting:
            raise RuntimeError("no request is waiting for a response")
        machine = self._waiting[0]
        while True:
            try:
                event = machine.next_event()
            except h11.RemoteProtocolError as exc:
                self.keep_alive = False
                raise ConnectionLost(f"malformed or truncated HTTP response: {exc}") from exc
            if event is h11.NEED_DATA:
                return NEED_DATA
            if isinstance(event, h11.InformationalResponse):
                continue  # interim responses carry nothing the batch needs
            if isinstance(event, h11.Response):
                if event.status_code < 200:  # pragma: no cover - h11 reports 1xx separately
                    continue
                fields = Fields(
                    (n.decode("latin-1"), v.decode("latin-1")) for n, v in event.headers.raw_items()
                )
                return Head(event.status_code, fields)
            if isinstance(event, h11.Data):
                if event.data:
                    return bytes(event.data)
                continue
            if isinstance(event, h11.EndOfMessage):
                trailers = Fields(
                    (n.decode("latin-1"), v.decode("latin-1")) for n, v in event.headers.raw_items()
                )
                self._finish(machine)
                return End(trailers)
            if isinstance(event, h11.ConnectionClosed):
                self.keep_alive = False
                raise ConnectionLost("the server closed the connection before responding")
            raise ConnectionLost(f"unexpected HTTP event {event!r}")  # pragma: no cover

    def _finish(self, machine: h11.Connection) -> None:
        self._waiting.popleft()
        if machine.our_state is h11.MUST_CLOSE or machine.their_state is h11.MUST_CLOSE:
            self.keep_alive = False
        leftover, closed = machine.trailing_data
        if self._waiting:
            nxt = self._waiting[0]
            if leftover:
                nxt.receive_data(leftover)
            if closed or self._eof:
                nxt.receive_data(b"")
        else:
            self._pending = leftover
        if closed:
            self.keep_alive = False
