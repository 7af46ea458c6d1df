"""One HTTP exchange of ``mixbatch send``: the request out, the answer read and judged.

The request goes over a plain socket through h11. The response content passes through the
client library's ``ContentDecoder`` (MB-INTER-2: "A client MUST remove any content coding ...
before parsing it as multipart/mixed"), then through the codec's parser in Role.RESPONSE, and
each part is shown through the ``Output`` as soon as it is complete. ``--raw`` writes the
response octets exactly as received instead. The exit status (``_send_exits``) follows from the
status, the parts counted and their outcomes.

Output errors are not network errors: only the socket calls are guarded, so a closed stdout
(``| head -1``) reaches ``mixbatch.cli.main`` as ``BrokenPipeError`` and exits quietly.
"""

from __future__ import annotations

import argparse
import socket
from typing import Any, BinaryIO

import h11

from mixbatch.client import BatchProtocolError, ContentDecoder
from mixbatch.codec import (
    BatchParser,
    Limits,
    PartData,
    PartEnd,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)

from ._display import Output, PartView
from ._send_exits import (
    EXIT_ANSWERED,
    EXIT_NOT_ALL_ANSWERED,
    EXIT_PROTOCOL,
    EXIT_REFUSED,
)

__all__ = ["NetworkError", "connect", "exchange", "request_octets"]

_READ_SIZE = 65536
#: Bounds for reading a response: its size is the server's choice and the user asked for it, so
#: only a header section is bounded (by what no real server sends), not the octets.
_RESPONSE_LIMITS = Limits(
    max_part_header_bytes=1024 * 1024,
    max_part_fields=10_000,
    max_part_bytes=1 << 40,
    max_batch_bytes=1 << 50,
)


class NetworkError(Exception):
    """A socket call failed; carries the OS error's text."""


def request_octets(target: str, headers: list[tuple[str, str]], content: bytes) -> bytes:
    """The whole batch request as h11 writes it: ``POST target`` with ``content``."""
    writer = h11.Connection(h11.CLIENT)
    return b"".join(
        writer.send(event) or b""
        for event in (
            h11.Request(method="POST", target=target, headers=headers),
            h11.Data(data=content),
            h11.EndOfMessage(),
        )
    )


def connect(host: str, port: int, timeout: float) -> socket.socket:
    try:
        return socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise NetworkError(str(exc) or type(exc).__name__) from exc


class _Tally:
    """Counts the parts of a multipart response and shows each when it ends."""

    def __init__(self, output: Output, boundary: str) -> None:
        self._output = output
        self._parser = BatchParser(boundary, Role.RESPONSE, _RESPONSE_LIMITS)
        self._start: ResponsePartStart | None = None
        self._body: list[bytes] = []
        self.parts = 0
        self.aborted = False
        self.not_taken = 0  # parts that did not run or did not stand
        self.failed = 0

    def feed(self, data: bytes) -> None:
        self._handle(self._parser.feed(data) if data else [])

    def finish(self) -> None:
        self._handle(self._parser.feed_eof())

    def _handle(self, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, ResponsePartStart):
                self._start, self._body = event, []
            elif isinstance(event, PartData):
                self._body.append(bytes(event.data))
            elif isinstance(event, PartEnd) and self._start is not None:
                start = self._start
                if start.outcome == "aborted":
                    self.aborted = True
                else:
                    self.parts += 1
                    if start.outcome is not None or start.status is None:
                        self.not_taken += 1
                    elif start.status >= 400:
                        self.failed += 1
                self._output.part(
                    PartView(
                        start.index,
                        start.status,
                        start.outcome,
                        start.content_id,
                        list(start.fields),
                        b"".join(self._body),
                    )
                )


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(_READ_SIZE)
    except OSError as exc:
        raise NetworkError(str(exc) or type(exc).__name__) from exc


def _verdict(
    args: argparse.Namespace, status: int, tally: _Tally | None, expected: int | None
) -> int:
    if status == 207 and tally is None:
        return EXIT_ANSWERED
    if status != 200 or tally is None:
        return EXIT_REFUSED
    if tally.aborted or tally.not_taken:
        return EXIT_NOT_ALL_ANSWERED
    if expected is not None and tally.parts != expected:
        return EXIT_PROTOCOL
    if args.fail and tally.failed:
        return EXIT_NOT_ALL_ANSWERED
    return EXIT_ANSWERED


def exchange(
    args: argparse.Namespace,
    sock: socket.socket,
    request: bytes,
    output: Output,
    raw: BinaryIO,
    expected: int | None,
) -> int:
    """Send ``request`` on ``sock``, show the answer, and return the exit status.

    Raises ``NetworkError`` when no response began (or ``--raw`` output was cut), and
    ``BatchProtocolError`` or the codec's ``MixbatchError`` when the response broke the protocol.
    """
    conn = h11.Connection(h11.CLIENT)
    try:
        sock.sendall(request)
    except OSError as exc:
        raise NetworkError(str(exc) or type(exc).__name__) from exc
    tally: _Tally | None = None
    decoder: ContentDecoder | None = None
    status = 0
    rest: list[bytes] = []
    while True:
        try:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = _recv(sock)
                if args.raw:
                    raw.write(data)
                conn.receive_data(data)
                continue
        except (h11.RemoteProtocolError, NetworkError) as exc:
            if not status or args.raw:
                raise NetworkError(f"malformed or truncated HTTP response: {exc}") from exc
            # MB-WIRE-14: the content was cut. The parts that arrived whole stand; the codec
            # reports the rest as missing when told the content ended.
            if tally is not None:
                tally.finish()
            raise BatchProtocolError(f"the response content was cut short: {exc}") from exc
        if isinstance(event, h11.Response):
            status = event.status_code
            fields = [
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in event.headers.raw_items()
            ]
            if args.raw:
                continue
            output.head(status, event.reason.decode("latin-1"), fields)
            decoder = ContentDecoder([v for k, v in fields if k.lower() == "content-encoding"])
            content_type = next((v for k, v in fields if k.lower() == "content-type"), "")
            if status == 200 and content_type.lower().startswith("multipart/"):
                tally = _Tally(output, parse_batch_content_type(content_type))
        elif isinstance(event, h11.Data):
            if decoder is None:
                continue
            data = decoder.decode(bytes(event.data))
            if tally is not None:
                tally.feed(data)
            else:
                rest.append(data)
        elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
            if args.raw:
                return EXIT_ANSWERED if status in (200, 207) else EXIT_REFUSED
            tail = decoder.flush() if decoder is not None else b""
            if tally is not None:
                tally.feed(tail)
                tally.finish()
            elif rest or tail:
                output.content(b"".join([*rest, tail]))
            trailers = []
            if isinstance(event, h11.EndOfMessage):
                trailers = [
                    (n.decode("latin-1"), v.decode("latin-1")) for n, v in event.headers.raw_items()
                ]
            verdict = _verdict(args, status, tally, expected)
            output.end(trailers, verdict)
            return verdict
