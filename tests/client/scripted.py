"""A transport that answers from a script, so the client engine is tested with no sockets.

Each entry of the script is a function from the HTTP request just sent to the raw octets of
the response (status line, fields, content). The octets go through the real
``Http1Connection``, so framing, chunking and pipelining are exercised exactly as on a socket.
``sent`` records every request in order; ``sends`` records how many requests each write held.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Sequence

from mixbatch.client._http1 import End, Head, Http1Connection, HttpRequest
from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    PartData,
    RequestPartStart,
    Role,
    parse_batch_content_type,
)

Responder = Callable[[HttpRequest], bytes]


class ScriptedTransport:
    def __init__(self, script: Sequence[Responder], chunk: int = 7) -> None:
        self._script = list(script)
        self._conn = Http1Connection("example.test")
        self._inbox = b""
        self._chunk = chunk
        self.sent: list[HttpRequest] = []
        self.sends: list[int] = []
        self.closed = 0

    def send(self, requests: tuple[HttpRequest, ...]) -> None:
        if not self._conn.keep_alive:
            self._conn = Http1Connection("example.test")
        self._conn.send(list(requests))
        self.sends.append(len(requests))
        for request in requests:
            self.sent.append(request)
            if not self._script:
                raise AssertionError(f"unexpected request {request.method} {request.target}")
            self._inbox += self._script.pop(0)(request)

    def _event(self) -> Head | bytes | End:
        while True:
            event = self._conn.next_event()
            if isinstance(event, Head | bytes | End):
                return event
            data, self._inbox = self._inbox[: self._chunk], self._inbox[self._chunk :]
            self._conn.receive_data(data)  # b"" once the script is exhausted: EOF

    def receive_head(self) -> Head:
        event = self._event()
        assert isinstance(event, Head)
        return event

    def read_body(self) -> bytes:
        event = self._event()
        if isinstance(event, End):
            return b""
        assert isinstance(event, bytes)
        return event

    def close(self) -> None:
        self.closed += 1
        self._conn = Http1Connection("example.test")
        self._inbox = b""


def http_response(
    status: int, headers: Sequence[tuple[str, str]] = (), body: bytes = b"", *, close: bool = False
) -> bytes:
    lines = [f"HTTP/1.1 {status} X"]
    lines += [f"{k}: {v}" for k, v in headers]
    if close:
        lines.append("Connection: close")
    else:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def parse_batch_request(request: HttpRequest) -> list[tuple[str, str, bytes]]:
    """(method, target, body) of every part of a batch request the client sent."""
    content_type = dict(request.headers)["Content-Type"]
    parser = BatchParser(parse_batch_content_type(content_type), Role.REQUEST)
    parts: list[tuple[str, str, bytes]] = []
    for event in parser.feed(request.body) + parser.feed_eof():
        if isinstance(event, RequestPartStart):
            parts.append((event.method, event.target, b""))
        elif isinstance(event, PartData):
            method, target, body = parts[-1]
            parts[-1] = (method, target, body + bytes(event.data))
    return parts


PartSpec = tuple[int | None, str | None, Sequence[tuple[str, str]], bytes]
Received = tuple[str, str, bytes]


def batch_reply(
    parts: Callable[[list[tuple[str, str, bytes]]], list[PartSpec]],
    *,
    coding: str | None = None,
    close_delimiter: bool = True,
    abort_at: int | None = None,
) -> Responder:
    """A responder answering a batch with the parts ``parts(request parts)`` describes:
    (status, outcome, fields, body) each."""

    def respond(request: HttpRequest) -> bytes:
        assert request.method == "POST", request
        received = parse_batch_request(request)
        writer = BatchWriter()
        content = b""
        for index, (status, outcome, fields, body) in enumerate(parts(received)):
            if abort_at == index:
                problem = json.dumps(
                    {"type": "x", "title": "t", "status": 503, "part_index": index}
                )
                content += writer.response_part(
                    None,
                    None,
                    [("Content-Type", "application/problem+json")],
                    problem.encode(),
                    "aborted",
                )
                break
            content += writer.response_part(status, received[index][1], fields, body, outcome)
        if close_delimiter:
            content += writer.close()
        else:
            # Cut the "CRLF --boundary" that ends the last part: it never arrived whole.
            content = content[: -(len(writer.boundary) + 4)]
        headers = [("Content-Type", writer.content_type)]
        if coding == "gzip":
            content = gzip.compress(content)
            headers.append(("Content-Encoding", "gzip"))
        return http_response(200, headers, content, close=not close_delimiter)

    return respond


def echo_parts(received: list[tuple[str, str, bytes]]) -> list[PartSpec]:
    """200 for every part, with the part's target as its body."""
    return [
        (200, None, [("Content-Type", "text/plain")], target.encode()) for _, target, _ in received
    ]


def capabilities(**limits: int) -> Responder:
    document = {
        "spec_version": "draft-02",
        "endpoint": "/batch",
        "limits": {
            "max_parts": 10_000,
            "max_batch_bytes": 1 << 26,
            "max_part_bytes": 1 << 24,
            "max_part_header_bytes": 8192,
            **limits,
        },
        "profiles": ["core", "limits"],
        "representations": ["multipart/mixed"],
    }
    body = json.dumps(document).encode()

    def respond(request: HttpRequest) -> bytes:
        assert request.method == "OPTIONS", request
        return http_response(
            200, [("Content-Type", "application/vnd.mixbatch.capabilities+json")], body
        )

    return respond


def plain(status: int, body: bytes = b"", headers: Sequence[tuple[str, str]] = ()) -> Responder:
    return lambda request: http_response(status, headers, body)
