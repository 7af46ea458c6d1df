"""Raw-socket exchanges: write exact bytes, read until a bound, parse every answer with h11.

A campaign case or a fuzz input is sent as is, over one loopback connection. What comes back is
parsed strictly as HTTP/1.1 responses by an h11 client state machine (a malformed answer is a
finding in its own right), and the exchange records whether the peer closed the connection
afterwards and how long it all took. Every socket operation is bounded by a deadline, so no
exchange can hang a test.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import h11

__all__ = [
    "EXCHANGE_TIMEOUT",
    "Answer",
    "Exchange",
    "exchange",
    "parse_answers",
    "request_bytes",
]

#: Seconds one exchange may take before the reader gives up and records a hang.
EXCHANGE_TIMEOUT = 5.0
#: Octets read from one exchange before the reader stops (bounds memory on a runaway answer).
MAX_ANSWER_BYTES = 8 * 1024 * 1024


@dataclass
class Answer:
    """One response as parsed by h11."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        lname = name.lower()
        return next((v for k, v in self.headers if k.lower() == lname), None)

    @property
    def problem(self) -> dict[str, object] | None:
        """The problem document, when the answer is ``application/problem+json``."""
        kind = (self.header("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/problem+json":
            return None
        try:
            doc = json.loads(self.body)
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None

    @property
    def problem_type(self) -> str | None:
        doc = self.problem
        value = doc.get("type") if doc else None
        return value if isinstance(value, str) else None


@dataclass
class Exchange:
    """Everything one connection produced."""

    answers: list[Answer] = field(default_factory=list)
    #: The peer closed (FIN or reset) before the deadline.
    closed: bool = False
    #: The deadline passed with the connection still open and an answer still missing.
    hung: bool = False
    #: h11 refused what the peer sent: the text of its error.
    malformed: str | None = None
    #: Octets after the last complete answer that do not form one.
    leftover: bytes = b""
    elapsed: float = 0.0
    raw: bytes = b""

    @property
    def first(self) -> Answer | None:
        return self.answers[0] if self.answers else None


def request_bytes(
    method: str,
    target: str,
    fields: Sequence[tuple[str, str]] = (),
    body: bytes = b"",
    *,
    host: str | None = "test",
    length: bool = True,
) -> bytes:
    """An HTTP/1.1 request written exactly as given (no validation, no normalisation)."""
    lines = [f"{method} {target} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    lines.extend(f"{name}: {value}" for name, value in fields)
    if (
        length
        and not any(name.lower() in ("content-length", "transfer-encoding") for name, _ in fields)
        and (body or method in ("POST", "PUT", "PATCH"))
    ):
        lines.append(f"Content-Length: {len(body)}")
    head = "\r\n".join(lines) + "\r\n\r\n"
    return head.encode("latin-1") + body


def parse_answers(data: bytes, methods: Sequence[str] = ("POST",), *, eof: bool = True) -> Exchange:
    """Parse ``data`` as the responses to requests made with ``methods`` (the last repeats).

    ``eof`` says the peer closed after ``data``: an answer cut short is then malformed rather
    than still arriving.
    """
    result = Exchange(raw=data)
    conn = h11.Connection(h11.CLIENT)
    conn.receive_data(data)
    if eof:
        conn.receive_data(b"")
    index = 0
    while True:
        method = methods[min(index, len(methods) - 1)]
        try:
            conn.send(h11.Request(method=method, target="/", headers=[("Host", "x")]))
            conn.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            break
        head: h11.Response | None = None
        chunks: list[bytes] = []
        try:
            while True:
                event = conn.next_event()
                if isinstance(event, h11.InformationalResponse):
                    continue
                if isinstance(event, h11.Response):
                    head = event
                elif isinstance(event, h11.Data):
                    chunks.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    break
                else:  # NEED_DATA or ConnectionClosed: no complete answer
                    if head is not None and eof:
                        result.malformed = "the connection ended inside a response"
                    result.leftover = bytes(conn.trailing_data[0])
                    return result
        except h11.RemoteProtocolError as exc:
            if head is None and not conn.trailing_data[0]:
                return result  # a clean close between answers
            result.malformed = str(exc)
            result.leftover = bytes(conn.trailing_data[0])
            return result
        assert head is not None
        result.answers.append(
            Answer(
                head.status_code,
                [(k.decode("latin-1"), v.decode("latin-1")) for k, v in head.headers.raw_items()],
                b"".join(chunks),
            )
        )
        index += 1
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
        else:
            # The answer asked to close (Connection: close): octets after it are no response.
            result.leftover = bytes(conn.trailing_data[0])
            return result
    return result


def exchange(
    address: tuple[str, int],
    data: bytes | Sequence[bytes],
    *,
    methods: Sequence[str] = ("POST",),
    expect: int = 1,
    timeout: float = EXCHANGE_TIMEOUT,
    pause: float = 0.0,
    half_close: bool = False,
    linger: float = 0.0,
) -> Exchange:
    """Send ``data`` (one buffer, or pieces with ``pause`` seconds between them), then read.

    Reading stops at the peer's close, at the deadline, or once ``expect`` complete answers
    arrived and the connection then stayed quiet for ``linger`` seconds (time for a peer that
    means to close to do so).
    """
    started = time.monotonic()
    deadline = started + timeout
    received = bytearray()
    closed = False
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pieces = [data] if isinstance(data, bytes | bytearray) else list(data)
        try:
            for i, piece in enumerate(pieces):
                if i and pause:
                    time.sleep(pause)
                sock.sendall(piece)
            if half_close:
                sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the peer refused early; read what it said
        with_answers = 0.0
        while len(received) < MAX_ANSWER_BYTES:
            now = time.monotonic()
            if now >= deadline:
                break
            wait = deadline - now
            if with_answers:
                wait = min(wait, max(0.0, with_answers - now))
                if wait <= 0:
                    break
            sock.settimeout(max(wait, 0.001))
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                if with_answers:
                    break
                continue
            except (ConnectionResetError, ConnectionAbortedError):
                closed = True
                break
            if not chunk:
                closed = True
                break
            received += chunk
            if (
                not with_answers
                and len(parse_answers(bytes(received), methods, eof=False).answers) >= expect
            ):
                with_answers = time.monotonic() + linger
                if not linger:
                    break
    result = parse_answers(bytes(received), methods, eof=closed)
    result.closed = closed
    result.hung = not closed and len(result.answers) < expect
    result.elapsed = time.monotonic() - started
    return result
