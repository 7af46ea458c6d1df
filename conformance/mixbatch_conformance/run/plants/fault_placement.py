"""Planted servers whose validation depends on where a faulty part stands or on the mode a batch
asks for (spec 3.1, 3.2, 5.1, 5.3: MB-WIRE-17, MB-PART-11, MB-STATUS-4, MB-STATUS-2,
MB-WIRE-2, MB-STATUS-9).

Each plant lacks a validation on one path only: a part that is not the last (its body ended
by an inner delimiter), the first part of several, the last part's index in a problem
document, a batch asking for `batch-on-error=stop`, a batch asking for `Batch-Mode: atomic`.
The same fault on the other paths is still refused, so only a check that sends it on the
planted path sees the difference.
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    accepts,
    all_of,
    boundary_of,
    header_has,
    problem_doc,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

STOP = header_has("Prefer", r"(?i)batch-on-error\s*=\s*\"?stop")
ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")


def _raw_parts(req: RelayRequest) -> list[bytes]:
    """Each part of a batch request as sent (header section and body), split at the
    delimiters without judging them."""
    b = boundary_of(req)
    if not b or req.method != "POST":
        return []
    dash = b"--" + b.encode("latin-1")
    body = req.body
    first = body.find(dash)
    if first < 0:
        return []
    pieces = (b"\r\n" + body[first:]).split(b"\r\n" + dash)[1:]
    parts = []
    for piece in pieces:
        if piece.startswith(b"--"):
            break
        line_end = piece.find(b"\r\n")
        parts.append(piece[line_end + 2 :] if line_end >= 0 else b"")
    return parts


def _length_wrong(part: bytes) -> bool:
    head, sep, body = part.partition(b"\r\n\r\n")
    if not sep:
        return False
    lengths = re.findall(rb"(?im)^content-length:[ \t]*([0-9]+)[ \t]*$", head)
    return len(lengths) == 1 and int(lengths[0]) != len(body)


def _inner_length_wrong(req: RelayRequest) -> bool:
    """A part other than the last has one Content-Length that is not its body's length."""
    return any(_length_wrong(p) for p in _raw_parts(req)[:-1])


def _first_lines_malformed(req: RelayRequest) -> bool:
    """The first of several parts has a space before a colon or an obs-fold line."""
    parts = _raw_parts(req)
    if len(parts) < 2:
        return False
    head = parts[0].partition(b"\r\n\r\n")[0]
    return re.search(rb"(?m)^[^:\r\n \t]+[ \t]+:|\r\n[ \t]", head) is not None


def _last_index_one_past(req: RelayRequest, resp: RelayResponse) -> None:
    """A problem document naming the last of several parts names one past it instead."""
    doc = problem_doc(resp) if resp.status >= 400 else None
    if doc is None:
        return
    count = len(_raw_parts(req))
    if count >= 2 and doc.get("part_index") == count - 1:
        doc["part_index"] = count
        resp.body = json.dumps(doc).encode()


def _dispatch_fault(req: RelayRequest) -> bool:
    """A part refused only when it comes to be dispatched: a foreign target, TRACE, the batch
    endpoint, or a forbidden field."""
    return any(
        re.search(
            rb"(?im)elsewhere\.invalid|^http-method:[ \t]*TRACE|^host:|^content-id:[ \t]*<[^>]*batch>",
            p.partition(b"\r\n\r\n")[0],
        )
        for p in _raw_parts(req)
    )


def _is_text(req: RelayRequest) -> bool:
    return (req.get("Content-Type") or "").lower().startswith("text/plain")


def _admits_no_form(req: RelayRequest) -> bool:
    return (req.get("Accept") or "").strip().lower() == "text/html"


POSITIONS = ("part-faults-refused-in-every-position",)
MODES = ("envelope-faults-refused-in-every-mode",)

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "length-compared-at-close-only",
        "MB-WIRE-17 Content-Length compared only for the part the close delimiter ends",
        POSITIONS,
        on_response=accepts(_inner_length_wrong),
    ),
    Mutation(
        "first-part-lines-split-at-colon",
        "MB-PART-11 first part's header lines split at the colon without the field-line grammar",
        POSITIONS,
        on_response=accepts(_first_lines_malformed),
    ),
    Mutation(
        "last-part-index-one-past",
        "MB-STATUS-4 part_index of a fault in the last part counted one past it",
        POSITIONS,
        on_response=_last_index_one_past,
    ),
    Mutation(
        "stop-batch-dispatch-fault-fails-its-part",
        "MB-STATUS-2 under batch-on-error=stop a part refused at dispatch answered as a failing part",
        MODES,
        on_response=accepts(all_of(STOP, _dispatch_fault)),
    ),
    Mutation(
        "atomic-batch-validated-inside-its-transaction",
        "MB-STATUS-2 an atomic batch's malformed part rolls the batch back instead of refusing it",
        MODES,
        on_response=accepts(all_of(ATOMIC, lambda req: bool(_raw_parts(req)))),
    ),
    Mutation(
        "atomic-batch-read-as-multipart-whatever-its-type",
        "MB-WIRE-2 an atomic batch's content read as multipart whatever its media type",
        MODES,
        on_response=refuses(all_of(ATOMIC, _is_text), 400, "MB-WIRE-4"),
    ),
    Mutation(
        "stop-batch-answered-in-default-form",
        "MB-STATUS-9 a batch asking for stop answered in multipart/mixed when Accept admits none",
        MODES,
        on_response=accepts(all_of(STOP, _admits_no_form)),
    ),
)
