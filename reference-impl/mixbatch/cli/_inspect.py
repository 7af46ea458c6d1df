"""``mixbatch inspect FILE``: validate a captured batch against the spec and explain faults.

The file holds the multipart content of a batch (or a whole captured HTTP message, whose head is
used for the boundary and then skipped). Without ``--boundary``, the boundary is inferred
(``read_capture``): from the Content-Type field of a whole message, else from the first line
that starts with "--" (the first delimiter line, RFC 2046 §5.1.1: "--" boundary, then optional
transport padding). ``--boundary`` overrides both. The content goes through the codec's strict parser in
the chosen role; a request batch also has each target resolved against the batch's URI and is
checked for nesting, as a server would (MB-PART-5, MB-SUB-2, MB-SUB-4). The parser stops at the
first fault, which is reported with its requirement ID, byte offset and the bytes around it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from mixbatch.codec import (
    BatchParser,
    MixbatchError,
    PartData,
    RequestPartStart,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
    resolve_part_target,
)

from ._display import exit_status_epilog, print_fault

__all__ = ["EXIT_STATUSES", "add_parser", "read_capture", "run"]

#: What each exit status of ``mixbatch inspect`` means (printed in ``--help`` and the docs).
EXIT_STATUSES = {
    0: "the batch is valid",
    1: "the batch has a fault (reported with its requirement ID and byte offset)",
    2: "unusable input: the file cannot be read, or no boundary is given or found",
}
#: Lines searched for the first delimiter; a preamble longer than this is not guessed through.
_BOUNDARY_SEARCH_LINES = 64

_HTTP_HEAD = re.compile(rb"(?:HTTP/1\.[01] \d{3}|[A-Z]+ \S+ HTTP/1\.[01])\r\n")
_LEADING_CONTENT_TYPE = re.compile(rb"(?i)content-type:")
_CONTENT_TYPE = re.compile(rb"(?im)^content-type:[ \t]*([^\r\n]*?)[ \t]*\r?$")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="validate a captured batch and explain each fault",
        epilog=exit_status_epilog(EXIT_STATUSES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, help="the batch content, or a whole HTTP message")
    parser.add_argument(
        "--boundary",
        help="the boundary (default: from the Content-Type of a whole HTTP message, else from "
        "the first delimiter line)",
    )
    parser.add_argument(
        "--role",
        choices=["request", "response"],
        default="request",
        help="parse as a batch request or a batch response (%(default)s)",
    )
    parser.add_argument("--base", default="/batch", help="the batch's target (%(default)s)")
    parser.add_argument(
        "--authority", default="localhost", help="the batch's authority (%(default)s)"
    )
    parser.add_argument("--scheme", default="http", help="the batch's scheme (%(default)s)")
    parser.set_defaults(run=run)


def _split_message(data: bytes) -> tuple[bytes, str | None]:
    """The content of a captured message and the boundary its head announces, if any.

    A head is either a whole HTTP message's (a request or status line, then fields) or a bare
    field block that starts with Content-Type, as ``curl -D`` or a MIME file writes it.
    """
    if not (_HTTP_HEAD.match(data) or _LEADING_CONTENT_TYPE.match(data)):
        return data, None
    head, sep, content = data.partition(b"\r\n\r\n")
    if not sep:
        return data, None
    found = _CONTENT_TYPE.search(head)
    if found is None:
        return content, None
    try:
        return content, parse_batch_content_type(found.group(1).decode("latin-1"))
    except MixbatchError:
        return content, None


def _guess_boundary(data: bytes) -> str | None:
    """The boundary of the first line that starts with "--" and recurs as a delimiter.

    Every batch has at least two delimiter lines (a part's and the close delimiter), so a
    preamble line that merely starts with "--" is passed over; when no candidate recurs, the
    first one is the best guess (the parser then explains what is wrong with it).
    """
    candidates: list[bytes] = []
    for line in data.split(b"\n", _BOUNDARY_SEARCH_LINES)[:_BOUNDARY_SEARCH_LINES]:
        line = line.rstrip(b"\r").rstrip(b" \t")  # transport padding (RFC 2046 §5.1.1)
        if line.startswith(b"--") and len(line) > 2:
            candidates.append(line[2:].removesuffix(b"--"))
    for candidate in candidates:
        if data.count(b"\n--" + candidate) + data.startswith(b"--" + candidate) >= 2:
            return candidate.decode("latin-1")
    return candidates[0].decode("latin-1") if candidates else None


def read_capture(data: bytes) -> tuple[bytes, str | None]:
    """The batch content in ``data`` and its boundary, inferred, or None when none is found.

    ``data`` is multipart content, or a whole HTTP message (or a field block that starts with
    Content-Type) whose head is dropped; the boundary comes from that Content-Type, else from
    the content's first delimiter line.
    """
    content, announced = _split_message(data)
    return content, announced or _guess_boundary(content)


def _check_target(args: argparse.Namespace, event: RequestPartStart) -> str:
    """The part's resolved target, checked as a server would check it."""
    return resolve_part_target(
        event,
        base=args.base,
        scheme=args.scheme,
        authority=args.authority,
        batch_paths=(args.base.partition("?")[0],),
    )


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    try:
        raw = args.file.read_bytes()
    except OSError as exc:
        print(f"mixbatch inspect: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    data, inferred = read_capture(raw)
    boundary = args.boundary or inferred
    if not boundary:
        print("mixbatch inspect: no boundary given and none found", file=sys.stderr)
        return 2
    role = Role.REQUEST if args.role == "request" else Role.RESPONSE
    try:
        parser = BatchParser(boundary, role)
    except ValueError as exc:
        print(f"mixbatch inspect: {exc}", file=sys.stderr)
        return 2
    lines: list[tuple[int, str, int, int]] = []
    sizes: dict[int, int] = {}
    try:
        for event in parser.feed(data) + parser.feed_eof():
            if isinstance(event, RequestPartStart):
                target = _check_target(args, event)
                text = f"{event.method} <{event.target}> -> {target}"
                lines.append((event.index, text, event.offset, len(event.fields)))
            elif isinstance(event, ResponsePartStart):
                label = str(event.status) if event.status is not None else "-"
                if event.outcome:
                    label += f" [{event.outcome}]"
                text = f"{label} <{event.content_id or ''}>"
                lines.append((event.index, text, event.offset, len(event.fields)))
            elif isinstance(event, PartData):
                sizes[event.index] = sizes.get(event.index, 0) + len(event.data)
    except MixbatchError as exc:
        print_fault(out, exc, data)
        return 1
    for index, text, offset, fields in lines:
        print(
            f"part {index} at byte {offset}: {text}, {fields} fields, {sizes.get(index, 0)} octets",
            file=out,
        )
    print(f"valid {args.role} batch: {len(lines)} parts, boundary {boundary!r}", file=out)
    return 0
