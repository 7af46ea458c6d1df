"""The batch request ``mixbatch send`` sends: its content and its header fields.

The content is written with the codec's ``BatchWriter`` from the ``METHOD TARGET`` pairs and
their per-part options or, byte for byte, taken from ``--file`` (its boundary inferred as
``inspect`` infers it, unless ``--boundary`` is given). The batch request asks for
``TE: trailers`` so that a ``Batch-Summary`` trailer can come back, and carries the client
library's ``Accept-Encoding``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mixbatch.client import ACCEPT_ENCODING, SubRequest
from mixbatch.codec import BatchWriter, MixbatchError, format_batch_content_type, is_token

from ._inspect import read_capture
from ._send_args import PartOption, UsageError

__all__ = ["batch_fields", "build_request", "split_field", "sub_requests"]


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


def split_field(text: str, what: str) -> tuple[str, str]:
    """(name, value) of a ``'Name: value'`` option; ``what`` names the option in the error."""
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
            draft.headers.append(split_field(option.value, "header"))
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


def batch_fields(
    args: argparse.Namespace, host: str, content_type: str, length: int
) -> list[tuple[str, str]]:
    """The header fields of the batch request: framing, ``TE: trailers``, the content codings
    the client can remove, then what the options ask for and ``--batch-header`` last."""
    fields = [
        ("Host", host),
        ("Content-Type", content_type),
        ("Content-Length", str(length)),
        ("TE", "trailers"),
        ("Cache-Control", "no-transform"),
    ]
    extra = [split_field(line, "--batch-header") for line in args.batch_header]
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
