"""``mixbatch send URL METHOD TARGET [part options] ...``: send a batch, show each answer.

Theory of operation. The command line is a sequence: the batch endpoint's URL, then sub-requests
written ``METHOD TARGET``, each followed by the options that belong to it (``-H`` for a header
field, ``--data``/``--data-binary``/``--data-raw`` for its content). Every other option is global
and may stand anywhere. argparse cannot tie an option to the positional before it, so
``split_argv`` first lifts the per-part options out of the argument list, noting how many
positionals preceded each, and argparse then reads the rest in any order
(``parse_intermixed_args``). The batch is written with the codec's ``BatchWriter`` or, byte for
byte, taken from ``--file`` (its boundary inferred as ``inspect`` infers it, unless
``--boundary`` is given).

The request goes over a plain socket through h11, with ``TE: trailers`` so that a
``Batch-Summary`` trailer can come back, and with the client library's ``Accept-Encoding``. The
response content passes through the client library's ``ContentDecoder`` (MB-INTER-2: "A client
MUST remove any content coding ... before parsing it as multipart/mixed"), then through the
codec's parser in Role.RESPONSE, and each part is shown as soon as it is complete: as text for a
person, or with ``--json`` as one JSON object per line. ``--raw`` writes the response octets
exactly as received instead.

Output errors are not network errors: only the socket calls are guarded, so a closed stdout
(``| head -1``) reaches ``mixbatch.cli.main`` as ``BrokenPipeError`` and exits quietly.
"""

from __future__ import annotations

import argparse
import re
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import h11

from mixbatch.client import ACCEPT_ENCODING, BatchProtocolError, ContentDecoder, SubRequest
from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    Limits,
    MixbatchError,
    PartData,
    PartEnd,
    ResponsePartStart,
    Role,
    format_batch_content_type,
    is_token,
    parse_batch_content_type,
)

from ._display import (
    HumanOutput,
    JsonOutput,
    Output,
    PartView,
    exit_status_epilog,
)
from ._inspect import read_capture

__all__ = [
    "EXIT_STATUSES",
    "NAME",
    "PartOption",
    "UsageError",
    "add_parser",
    "build_request",
    "main",
    "parse_args",
    "split_argv",
]

NAME = "send"
#: Seconds to wait on the network before giving up.
DEFAULT_TIMEOUT = 30.0
#: Characters of a text body shown before it is cut.
DEFAULT_MAX_BODY = 2000
_READ_SIZE = 65536
#: Bounds for reading a response: its size is the server's choice and the user asked for it, so
#: only a header section is bounded (by what no real server sends), not the octets.
_RESPONSE_LIMITS = Limits(
    max_part_header_bytes=1024 * 1024,
    max_part_fields=10_000,
    max_part_bytes=1 << 40,
    max_batch_bytes=1 << 50,
)

EXIT_ANSWERED = 0
EXIT_NOT_ALL_ANSWERED = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_PROTOCOL = 4
EXIT_NETWORK = 5

#: What each exit status of ``mixbatch send`` means (printed in ``--help`` and the docs).
EXIT_STATUSES = {
    EXIT_ANSWERED: "every sub-request was answered: a complete 200 multipart response with one "
    "part per sub-request, each with its status (4xx and 5xx parts are answers too), or a "
    "complete 207 document",
    EXIT_NOT_ALL_ANSWERED: "the batch response is complete, but not every sub-request took "
    "effect: a part was skipped or rolled back, or the server aborted and the rest have an "
    "unknown outcome; with --fail, also when a part's status is 400 or above",
    EXIT_USAGE: "usage error (bad option, argument or file)",
    EXIT_REFUSED: "the batch was not answered as a batch: a status other than 200 or 207 "
    "(the server refused it whole, no part ran), or a 200 that is not multipart",
    EXIT_PROTOCOL: "the response broke the protocol: it ended before its close delimiter "
    "(MB-WIRE-14), its framing or part count is wrong, or its content coding cannot be removed",
    EXIT_NETWORK: "no exchange: the connection could not be made, timed out, or failed "
    "before the response began",
}

#: Per-part options: (option strings, kind). They belong to the METHOD TARGET before them.
PART_OPTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("-H", "--header"), "header"),
    (("-d", "--data", "--data-binary"), "data"),
    (("--data-raw",), "data-raw"),
)
_PART_KIND = {flag: kind for flags, kind in PART_OPTIONS for flag in flags}


class UsageError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class PartOption:
    """A per-part option lifted out of the command line; ``after`` counts the positionals
    (URL, methods and targets) that came before it."""

    after: int
    flag: str
    kind: str
    value: str


def _configure(parser: argparse.ArgumentParser) -> frozenset[str]:
    """Declare send's options on ``parser``; returns the global options that take a value."""
    parser.add_argument("url", help="the batch endpoint, e.g. http://127.0.0.1:8080/batch")
    parser.add_argument(
        "requests",
        nargs="*",
        metavar="METHOD TARGET",
        help="a sub-request; its -H/--data options follow it",
    )
    part = parser.add_argument_group(
        "per sub-request (each applies to the METHOD TARGET just before it)"
    )
    part.add_argument(
        "-H",
        "--header",
        dest="part_header",
        action="append",
        metavar="'NAME: VALUE'",
        help="a header field of the sub-request (repeatable)",
    )
    part.add_argument(
        "-d",
        "--data",
        "--data-binary",
        dest="part_data",
        metavar="TEXT|@FILE",
        help="the sub-request's content: TEXT as UTF-8, @FILE the file's octets, @- stdin; "
        "sent unchanged (newlines kept, unlike curl -d)",
    )
    part.add_argument(
        "--data-raw",
        dest="part_data_raw",
        metavar="TEXT",
        help="the sub-request's content, TEXT as UTF-8 with no @FILE meaning",
    )
    valued: list[argparse.Action] = [
        parser.add_argument("--file", type=Path, help="send this batch content, byte for byte"),
        parser.add_argument(
            "--boundary",
            help="the boundary of --file's content (default: inferred from its first "
            "delimiter line, or from the Content-Type of a whole captured message)",
        ),
        parser.add_argument(
            "--batch-header",
            action="append",
            default=[],
            metavar="'NAME: VALUE'",
            help="a header field of the batch request itself (repeatable), e.g. Authorization",
        ),
        parser.add_argument("--accept", help="Accept value (e.g. application/xml for 207 XML)"),
        parser.add_argument(
            "--on-error", choices=["continue", "stop"], help="send Prefer: batch-on-error=..."
        ),
        parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds"),
        parser.add_argument(
            "--max-body",
            type=int,
            default=DEFAULT_MAX_BODY,
            help="characters of text bodies shown (not with --json)",
        ),
    ]
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per line: the response head, each part (index, status, "
        "outcome, content_id, headers, and body as text or body_base64), then the end",
    )
    output.add_argument(
        "--raw",
        action="store_true",
        help="write the raw response octets, undecoded (exit 0 for a complete 200 or 207 "
        "response, 3 for another status: the parts are not examined)",
    )
    parser.add_argument(
        "--fail", action="store_true", help="exit 1 when a part's status is 400 or above"
    )
    parser.add_argument(
        "--atomic",
        action="store_true",
        help="send Batch-Mode: atomic: all parts or none (a server without it answers 501)",
    )
    parser.add_argument(
        "--references",
        action="store_true",
        help="send Batch-Mode: references, so $(N) and $(N:Field) name earlier parts' results "
        "(quote them for the shell)",
    )
    parser.set_defaults(run=run)
    return frozenset(flag for action in valued for flag in action.option_strings)


def _description() -> str:
    return (
        "Send a batch and print each response part as it arrives.\n\n"
        "example:\n"
        "  mixbatch send http://127.0.0.1:8080/batch GET /books/1 \\\n"
        "      POST /books -H 'Content-Type: application/json' --data '{\"title\": \"T\"}'"
    )


def _parser_options() -> dict[str, Any]:
    return {
        "description": _description(),
        "epilog": exit_status_epilog(EXIT_STATUSES),
        "formatter_class": argparse.RawDescriptionHelpFormatter,
        "allow_abbrev": False,  # an abbreviated option would hide whether it takes a value
    }


def add_parser(subparsers: Any) -> None:
    """Declare ``send`` for ``mixbatch --help``; ``main`` parses its arguments itself."""
    parser = subparsers.add_parser(
        NAME, help="send a batch and print each response part", **_parser_options()
    )
    _configure(parser)


def _standalone_parser() -> tuple[argparse.ArgumentParser, frozenset[str]]:
    parser = argparse.ArgumentParser(prog=f"mixbatch {NAME}", **_parser_options())
    return parser, _configure(parser)


_ATTACHED = re.compile(r"^(--[a-z-]+)=(.*)$", re.DOTALL)


def _part_flag(token: str) -> tuple[str, str | None] | None:
    """(flag, attached value or None) when ``token`` is a per-part option."""
    if token in _PART_KIND:
        return token, None
    if match := _ATTACHED.match(token):
        if match.group(1) in _PART_KIND:
            return match.group(1), match.group(2)
        return None
    if len(token) > 2 and token[:2] in ("-H", "-d"):
        return token[:2], token[2:]
    return None


def split_argv(argv: Sequence[str], valued: frozenset[str]) -> tuple[list[str], list[PartOption]]:
    """Lift the per-part options out of ``argv``: (the rest, in order; the per-part options).

    ``valued`` names the global options that take a value, so that their value is not counted as
    a positional. After ``--`` every token is positional.
    """
    rest: list[str] = []
    options: list[PartOption] = []
    positionals = 0
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token == "--":
            rest += tokens[i - 1 :]
            positionals += len(tokens) - i
            break
        found = _part_flag(token)
        if found is not None:
            flag, value = found
            if value is None:
                if i >= len(tokens):
                    raise UsageError(f"{flag} needs a value")
                value = tokens[i]
                i += 1
            options.append(PartOption(positionals, flag, _PART_KIND[flag], value))
            continue
        rest.append(token)
        if token.startswith("-") and token != "-":
            if token in valued and i < len(tokens):
                rest.append(tokens[i])
                i += 1
        else:
            positionals += 1
    return rest, options


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[PartOption]]:
    """Parse send's command line (argparse exits 2 on a usage error, as usual)."""
    parser, valued = _standalone_parser()
    try:
        rest, options = split_argv(argv, valued)
    except UsageError as exc:
        parser.error(str(exc))
    return parser.parse_intermixed_args(rest), options


def _read_data(option: PartOption) -> bytes:
    if option.kind == "data-raw" or not option.value.startswith("@"):
        return option.value.encode("utf-8")
    name = option.value[1:]
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(name).read_bytes()
    except OSError as exc:
        raise UsageError(f"{option.flag} {option.value}: cannot read {name}: {exc}") from None


def _field(text: str, what: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not is_token(name.strip()):
        raise UsageError(f"bad {what} {text!r}; use 'Name: value'")
    return name.strip(), value.strip()


@dataclass
class _Draft:
    method: str
    target: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None


def sub_requests(pairs: Sequence[str], options: Sequence[PartOption]) -> list[SubRequest]:
    """The sub-requests that ``METHOD TARGET`` pairs and their per-part options describe."""
    if not pairs or len(pairs) % 2:
        raise UsageError("sub-requests are METHOD TARGET pairs, e.g. GET /books/1")
    drafts = [_Draft(m, t) for m, t in zip(pairs[::2], pairs[1::2], strict=True)]
    for option in options:
        # Positionals: URL, then METHOD and TARGET of sub-request 0, 1, ...
        if option.after < 2:
            raise UsageError(
                f"{option.flag} {option.value!r} comes before any METHOD TARGET; per-part "
                "options follow the sub-request they belong to (--batch-header is for the "
                "batch request itself)"
            )
        if option.after % 2 == 0:
            raise UsageError(
                f"{option.flag} {option.value!r} comes between a METHOD and its TARGET"
            )
        draft = drafts[(option.after - 3) // 2]
        if option.kind == "header":
            draft.headers.append(_field(option.value, "header"))
        elif draft.body is not None:
            raise UsageError(f"{draft.method} {draft.target} has more than one --data")
        else:
            draft.body = _read_data(option)
    requests = []
    for draft in drafts:
        if not is_token(draft.method):
            raise UsageError(f"{draft.method!r} is not a method")
        try:
            requests.append(
                SubRequest(
                    draft.method.upper(), draft.target, tuple(draft.headers), draft.body or b""
                )
            )
        except ValueError as exc:
            raise UsageError(f"cannot send {draft.method} {draft.target}: {exc}") from None
    return requests


def build_request(
    args: argparse.Namespace, options: Sequence[PartOption] = ()
) -> tuple[str, bytes, int | None]:
    """(Content-Type, content, number of sub-requests or None when unknown) of the batch."""
    if args.file is not None:
        if args.requests or options:
            raise UsageError("give either --file or METHOD TARGET sub-requests, not both")
        try:
            captured = args.file.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {args.file}: {exc}") from None
        content, boundary = read_capture(captured)
        boundary = args.boundary or boundary
        if not boundary:
            raise UsageError(f"no boundary found in {args.file}; give --boundary")
        return format_batch_content_type(boundary), content, None
    if args.boundary:
        raise UsageError("--boundary goes with --file")
    requests = sub_requests(args.requests, options)
    writer = BatchWriter()
    chunks = []
    for index, request in enumerate(requests):
        if request.body and not any(k.lower() == "content-type" for k, _ in request.headers):
            print(
                f"mixbatch send: note: sub-request {index} ({request.method} {request.target}) "
                "has content but no Content-Type; a server may answer 415",
                file=sys.stderr,
            )
        try:
            chunks.append(
                writer.request_part(request.method, request.target, request.headers, request.body)
            )
        except MixbatchError as exc:
            raise UsageError(f"cannot send {request.method} {request.target}: {exc}") from None
    chunks.append(writer.close())
    return writer.content_type, b"".join(chunks), len(requests)


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
    extra = [_field(line, "--batch-header") for line in args.batch_header]
    if not any(name.lower() == "accept-encoding" for name, _ in extra):
        fields.append(("Accept-Encoding", ACCEPT_ENCODING))
    if args.accept:
        fields.append(("Accept", args.accept))
    if args.on_error:
        fields.append(("Prefer", f"batch-on-error={args.on_error}"))
    modes = [m for m, on in (("atomic", args.atomic), ("references", args.references)) if on]
    if modes:
        # MB-PROC-17: Batch-Mode is "a comma-separated list of modes".
        fields.append(("Batch-Mode", ", ".join(modes)))
    return fields + extra


class _NetworkError(Exception):
    """A socket call failed; carries the OS error's text."""


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
        raise _NetworkError(str(exc) or type(exc).__name__) from exc


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


def _exchange(
    args: argparse.Namespace,
    sock: socket.socket,
    request: bytes,
    output: Output,
    raw: BinaryIO,
    expected: int | None,
) -> int:
    conn = h11.Connection(h11.CLIENT)
    try:
        sock.sendall(request)
    except OSError as exc:
        raise _NetworkError(str(exc) or type(exc).__name__) from exc
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
        except (h11.RemoteProtocolError, _NetworkError) as exc:
            if not status or args.raw:
                raise _NetworkError(f"malformed or truncated HTTP response: {exc}") from exc
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


def run(args: argparse.Namespace, options: Sequence[PartOption] = ()) -> int:
    url = urlsplit(args.url)
    if url.scheme != "http" or not url.hostname:
        print(f"mixbatch send: only http:// URLs are supported, got {args.url!r}", file=sys.stderr)
        return EXIT_USAGE
    port = url.port or 80
    target = (url.path or "/") + (f"?{url.query}" if url.query else "")
    try:
        content_type, content, expected = build_request(args, options)
        headers = _headers(args, url.netloc, content_type, len(content))
    except UsageError as exc:
        print(f"mixbatch send: {exc}", file=sys.stderr)
        return EXIT_USAGE
    writer = h11.Connection(h11.CLIENT)
    request = b"".join(
        writer.send(event) or b""
        for event in (
            h11.Request(method="POST", target=target, headers=headers),
            h11.Data(data=content),
            h11.EndOfMessage(),
        )
    )
    out = sys.stdout
    output: Output = JsonOutput(out) if args.json else HumanOutput(out, args.max_body)
    try:
        try:
            sock = socket.create_connection((url.hostname, port), timeout=args.timeout)
        except OSError as exc:
            raise _NetworkError(str(exc) or type(exc).__name__) from exc
        with sock:
            return _exchange(args, sock, request, output, sys.stdout.buffer, expected)
    except _NetworkError as exc:
        print(f"mixbatch send: {args.url}: {exc}", file=sys.stderr)
        return EXIT_NETWORK
    except (MixbatchError, BatchProtocolError) as exc:
        output.fault(exc)
        output.end([], EXIT_PROTOCOL)
        return EXIT_PROTOCOL


def main(argv: Sequence[str]) -> int:
    """``mixbatch send`` with its own argument list (the per-part options need their order)."""
    args, options = parse_args(argv)
    return run(args, options)
