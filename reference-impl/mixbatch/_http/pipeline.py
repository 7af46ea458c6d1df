"""A sans-IO HTTP/1.1 client connection that can pipeline, built from one h11 state machine per
exchange; the client and the batching proxy's upstream pool both speak through it.

h11 models one request/response cycle at a time, and a client-side ``h11.Connection`` refuses a
second request before the first response is complete, which rules out pipelining (RFC 9112
§9.3.2). So each outstanding exchange gets its own ``h11.Connection``: it serialises its request
(the bytes are exactly what one connection would send, HEAD included, so it frames the response
right) and parses its response. Bytes that arrive past the end of one response (h11's
``trailing_data``) are the start of the next, and are fed to the next exchange's machine; past
the last one they wait in ``pending``, where they are a response nobody asked for. A transport
only moves bytes:

    data = conn.send(requests)      -> write data
    conn.next_event()               -> Head | bytes | End | NEED_DATA
    NEED_DATA                       -> conn.receive_data(read())   (b"" at EOF)

Responses come back in request order, as RFC 9112 §9.3.2 requires of the server. Interim (1xx)
responses are dropped. ``keep_alive`` turns False once any response says the connection closes
(Connection: close, HTTP/1.0 framing, or the peer's close). Requests go out with the fields the
caller gives, Host and framing included: h11 checks the framing and adds none of its own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import h11

from mixbatch.codec import Fields

__all__ = [
    "NEED_DATA",
    "End",
    "Head",
    "HttpRequest",
    "PipelineError",
    "PipelinedConnection",
]


class PipelineError(Exception):
    """The peer's octets are not an HTTP/1.1 response, or it closed before answering."""


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One request to write: origin-form target, its fields, content."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""


@dataclass(frozen=True, slots=True)
class Head:
    """A final response's status line and header section."""

    status: int
    headers: Fields
    reason: str = ""


@dataclass(frozen=True, slots=True)
class End:
    """The response content is complete; ``trailers`` are its trailer fields."""

    trailers: Fields


class _NeedData:
    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA: Final = _NeedData()

Event = Head | bytes | End | _NeedData


def _fields(raw: list[tuple[bytes, bytes]]) -> Fields:
    return Fields((n.decode("latin-1"), v.decode("latin-1")) for n, v in raw)


class PipelinedConnection:
    """The client side of one HTTP/1.1 connection: requests written back to back, responses
    read in the same order.

    ``max_header`` bounds a response's header section as h11's ``max_incomplete_event_size``;
    ``error`` makes the exception raised for a broken response (``PipelineError`` by default),
    so that each user reports it in its own terms.
    """

    def __init__(
        self,
        *,
        max_header: int | None = None,
        error: Callable[[str], Exception] = PipelineError,
    ) -> None:
        self._max_header = max_header
        self._error = error
        self._waiting: deque[h11.Connection] = deque()
        self._pending = b""  # bytes read before the exchange they belong to was at the front
        self._eof = False
        self.keep_alive = True

    @property
    def outstanding(self) -> int:
        """Requests written whose responses have not ended."""
        return len(self._waiting)

    @property
    def pending(self) -> int:
        """Octets received past the end of the last response, waiting for no request."""
        return len(self._pending) if not self._waiting else 0

    @property
    def front(self) -> h11.Connection | None:
        """The machine of the exchange whose response is read next."""
        return self._waiting[0] if self._waiting else None

    def send(self, requests: list[HttpRequest]) -> bytes:
        """The octets of ``requests``, written back to back (pipelined when more than one)."""
        out: list[bytes] = []
        for request in requests:
            out.append(self.send_one(request)[1])
        return b"".join(out)

    def send_one(self, request: HttpRequest) -> tuple[h11.Connection, bytes]:
        """The machine that will parse ``request``'s response, and the request's octets."""
        if self._max_header is None:
            machine = h11.Connection(h11.CLIENT)
        else:
            machine = h11.Connection(h11.CLIENT, max_incomplete_event_size=self._max_header)
        data = (
            machine.send(
                h11.Request(
                    method=request.method,
                    target=request.target,
                    # Field values hold octets one per character (ISO-8859-1), obs-text included
                    # (RFC 9110 §5.5); h11 would encode a str as ASCII.
                    headers=[
                        (n.encode("latin-1"), v.encode("latin-1")) for n, v in request.headers
                    ],
                )
            )
            or b""
        )
        if request.body:
            data += machine.send(h11.Data(data=request.body)) or b""
        data += machine.send(h11.EndOfMessage()) or b""
        if not self._waiting and self._pending:
            machine.receive_data(self._pending)
            self._pending = b""
        self._waiting.append(machine)
        return machine, data

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
                raise self._error(f"malformed or truncated HTTP response: {exc}") from exc
            if event is h11.NEED_DATA:
                return NEED_DATA
            if isinstance(event, h11.InformationalResponse):
                continue  # interim responses carry nothing the caller needs (MB-RESP-9)
            if isinstance(event, h11.Response):
                return Head(
                    event.status_code,
                    _fields(event.headers.raw_items()),
                    event.reason.decode("latin-1"),
                )
            if isinstance(event, h11.Data):
                if event.data:
                    return bytes(event.data)
                continue
            if isinstance(event, h11.EndOfMessage):
                self._finish(machine)
                return End(_fields(event.headers.raw_items()))
            if isinstance(event, h11.ConnectionClosed):
                self.keep_alive = False
                raise self._error("the server closed the connection before responding")
            if event is h11.PAUSED:  # pragma: no cover - a finished machine leaves the queue
                self.keep_alive = False
                raise self._error("more than one response to one request")
            raise self._error(f"unexpected HTTP event {event!r}")  # pragma: no cover

    def _finish(self, machine: h11.Connection) -> None:
        self._waiting.popleft()
        if machine.our_state is not h11.DONE or machine.their_state is not h11.DONE:
            self.keep_alive = False  # Connection: close, or HTTP/1.0 framing
        leftover, closed = machine.trailing_data
        if self._waiting:
            nxt = self._waiting[0]
            if leftover:
                nxt.receive_data(leftover)
            if closed or self._eof:
                nxt.receive_data(b"")
        else:
            self._pending = bytes(leftover)
        if closed:
            self.keep_alive = False
