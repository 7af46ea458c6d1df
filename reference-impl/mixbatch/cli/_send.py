"""``mixbatch send URL ...``: send a batch and show each response part as it arrives.

The batch comes from ``METHOD TARGET`` pairs on the command line (written with the codec's
``BatchWriter``) or, byte for byte, from ``--file`` with its ``--boundary`` (for replaying a
captured or hand-made batch, faults included). The request goes over a plain socket through h11,
with ``TE: trailers`` so that a ``Batch-Summary`` trailer can come back. A multipart response is
parsed incrementally by the codec in Role.RESPONSE and each part is printed when complete; other
responses (207 documents, problems) are printed whole. ``--raw`` writes the response octets
exactly as received instead.

Exit status: 0 for a complete 200/207 batch response, 1 for any other status or an incomplete
response (MB-WIRE-14: a response without the close delimiter is incomplete), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import Any, BinaryIO, TextIO
from urllib.parse import urlsplit

import h11

from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    IncompleteBatch,
    MixbatchError,
    PartData,
    PartEnd,
    ResponsePartStart,
    Role,
    format_batch_content_type,
    is_token,
    parse_batch_content_type,
)

from ._display import format_body, print_fault, print_part

__all__ = ["add_parser", "build_request", "run"]

#: Seconds to wait on the network before giving up.
DEFAULT_TIMEOUT = 30.0
#: Characters of a text body shown before it is cut.
DEFAULT_MAX_BODY = 2000
_READ_SIZE = 65536


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "send",
        help="send a batch and print each response part",
        description="Example: mixbatch send http://127.0.0.1:8080/batch GET /books/1 GET /books/2",
    )
    parser.add_argument("url", help="the batch endpoint, e.g. http://127.0.0.1:8080/batch")
    parser.add_argument(
        "requests", nargs="*", metavar="METHOD TARGET", help="sub-requests as method/target pairs"
    )
    parser.add_argument("--file", type=Path, help="send this batch content, byte for byte")
    parser.add_argument("--boundary", help="the boundary of --file's content")
    parser.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="a header field of the batch request (repeatable)",
    )
    parser.add_argument("--accept", help="Accept value (e.g. application/xml for 207 XML)")
    parser.add_argument(
        "--on-error", choices=["continue", "stop"], help="send Prefer: batch-on-error=..."
    )
    parser.add_argument("--raw", action="store_true", help="write the raw response octets")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds")
    parser.add_argument(
        "--max-body", type=int, default=DEFAULT_MAX_BODY, help="characters of text bodies shown"
    )
    parser.set_defaults(run=run)


class UsageError(Exception):
    pass


def build_request(args: argparse.Namespace) -> tuple[str, bytes]:
    """(Content-Type, content) of the batch the arguments describe."""
    if args.file is not None:
        if args.requests:
            raise UsageError("give either --file or METHOD TARGET pairs, not both")
        if not args.boundary:
            raise UsageError("--file needs --boundary")
        try:
            content = args.file.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {args.file}: {exc}") from None
        return format_batch_content_type(args.boundary), content
    pairs = args.requests
    if not pairs or len(pairs) % 2:
        raise UsageError("sub-requests are METHOD TARGET pairs, e.g. GET /books/1")
    writer = BatchWriter()
    chunks = []
    for method, target in zip(pairs[::2], pairs[1::2], strict=True):
        if not is_token(method):
            raise UsageError(f"{method!r} is not a method")
        try:
            chunks.append(writer.request_part(method.upper(), target))
        except MixbatchError as exc:
            raise UsageError(f"cannot send {method} {target}: {exc}") from None
    chunks.append(writer.close())
    return writer.content_type, b"".join(chunks)


def _headers(
    args: argparse.Namespace, host: str, content_type: str, length: int
) -> list[tuple[str, str]]:
    fields = [
        ("Host", host),
        ("Content-Type", content_type),
        ("Content-Length", str(length)),
        ("TE", "trailers"),
        ("Cache-Control", "no-transform"),
    ]
    if args.accept:
        fields.append(("Accept", args.accept))
    if args.on_error:
        fields.append(("Prefer", f"batch-on-error={args.on_error}"))
    for line in args.header:
        name, sep, value = line.partition(":")
        if not sep or not is_token(name.strip()):
            raise UsageError(f"bad header {line!r}; use 'Name: value'")
        fields.append((name.strip(), value.strip()))
    return fields


class _Printer:
    """Feeds a multipart response to the codec and prints each part when it ends."""

    def __init__(self, out: TextIO, boundary: str, max_chars: int) -> None:
        self._out = out
        self._parser = BatchParser(boundary, Role.RESPONSE)
        self._max_chars = max_chars
        self._start: ResponsePartStart | None = None
        self._body: list[bytes] = []

    def feed(self, data: bytes) -> None:
        self._handle(self._parser.feed(data))

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
                print_part(
                    self._out,
                    start.index,
                    start.status,
                    start.outcome,
                    start.content_id,
                    list(start.fields),
                    b"".join(self._body),
                    max_chars=self._max_chars,
                )


def _exchange(
    args: argparse.Namespace,
    conn: h11.Connection,
    sock: socket.socket,
    request: bytes,
    out: TextIO,
    raw: BinaryIO,
) -> int:
    sock.sendall(request)
    printer: _Printer | None = None
    status = 0
    rest: list[bytes] = []
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            data = sock.recv(_READ_SIZE)
            if args.raw:
                raw.write(data)
            conn.receive_data(data)
            continue
        if isinstance(event, h11.Response):
            status = event.status_code
            fields = [
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in event.headers.raw_items()
            ]
            if not args.raw:
                print(f"HTTP/1.1 {status} {event.reason.decode('latin-1')}", file=out)
                for name, value in fields:
                    print(f"{name}: {value}", file=out)
                print("", file=out)
            content_type = next((v for k, v in fields if k.lower() == "content-type"), "")
            if not args.raw and status == 200 and content_type.lower().startswith("multipart/"):
                printer = _Printer(out, parse_batch_content_type(content_type), args.max_body)
        elif isinstance(event, h11.Data):
            if args.raw:
                continue
            if printer is not None:
                printer.feed(bytes(event.data))
            else:
                rest.append(bytes(event.data))
        elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
            if args.raw:
                return 0 if status in (200, 207) else 1
            if printer is not None:
                printer.finish()
            elif rest:
                print(format_body(b"".join(rest), 1 << 30), file=out)
            if isinstance(event, h11.EndOfMessage):
                for t_name, t_value in event.headers.raw_items():
                    trailer = f"{t_name.decode('latin-1')}: {t_value.decode('latin-1')}"
                    print(f"(trailer) {trailer}", file=out)
            return 0 if status in (200, 207) else 1


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    url = urlsplit(args.url)
    if url.scheme != "http" or not url.hostname:
        print(f"mixbatch send: only http:// URLs are supported, got {args.url!r}", file=sys.stderr)
        return 2
    port = url.port or 80
    target = (url.path or "/") + (f"?{url.query}" if url.query else "")
    try:
        content_type, content = build_request(args)
        headers = _headers(args, url.netloc, content_type, len(content))
    except UsageError as exc:
        print(f"mixbatch send: {exc}", file=sys.stderr)
        return 2
    writer = h11.Connection(h11.CLIENT)
    request = b"".join(
        writer.send(event) or b""
        for event in (
            h11.Request(method="POST", target=target, headers=headers),
            h11.Data(data=content),
            h11.EndOfMessage(),
        )
    )
    try:
        with socket.create_connection((url.hostname, port), timeout=args.timeout) as sock:
            return _exchange(args, writer, sock, request, out, sys.stdout.buffer)
    except IncompleteBatch as exc:
        print("INCOMPLETE: the response ended without the close delimiter", file=out)
        print_fault(out, exc, b"")
        return 1
    except MixbatchError as exc:
        print_fault(out, exc, b"")
        return 1
    except (OSError, h11.ProtocolError) as exc:
        print(f"mixbatch send: {args.url}: {exc}", file=sys.stderr)
        return 1
