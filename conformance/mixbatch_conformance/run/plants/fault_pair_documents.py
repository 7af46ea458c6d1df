"""Planted violations of MB-STATUS-13 where a limit is exceeded beside a malformed envelope:
the status of one fault answered with the problem document of the other.

"Document of the other fault": the answer keeps the limit's status (and its `limit` member),
but its `requirement`, `part_index` and `byte_offset` describe the malformed fault, as a server
does that fills the document from the first fault its parser met and the status from the limit
it checks last:

    declared-length-413-names-mismatch   a part declaring more than max_part_bytes over a
                                         shorter body: MB-WIRE-17 at the Content-Length line
    header-431-names-bad-line            a section over max_part_header_bytes or max_part_fields
                                         beside a line without a colon: MB-PART-11 at that line
    parts-413-names-malformed-part       one part over max_parts beside a part without
                                         Http-Method: MB-PART-2 at that part
    batch-bytes-413-names-unclosed       content over max_batch_bytes without the close
                                         delimiter: MB-WIRE-13 at the content's end (slow)

"Status raised, document kept": the server found the malformed fault first and wrote its
document, then raised the status to the limit's (and named the limit) without rewriting the
rest. The relay shows the reference server the malformed fault alone where it would find the
limit first (the declared length cut to 2, the preamble dropped), or takes its 400 as it is:

    mismatch-400-raised-to-413           the declared length's pair
    bad-line-400-raised-to-431           a line without a colon before a section over
                                         max_part_header_bytes
    malformed-part-400-raised-to-413     a part without Http-Method among more than max_parts
    unclosed-400-raised-to-413           content over max_batch_bytes without the close
                                         delimiter (slow)

The limits are the reference server's defaults (spec 9.1's table), which the self-test's
target publishes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import RespEdit, boundary_of, edit_problem, is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Spec 9.1's reference defaults, the limits the self-test's target publishes.
MAX_PARTS = 10_000
MAX_PART_BYTES = 16 * 1024 * 1024
MAX_PART_HEADER_BYTES = 8192
MAX_BATCH_BYTES = 64 * 1024 * 1024
#: A request field the relay adds to a request it edited, for the answer's edit to find.
EDITED = "X-Plant-Fault-Pair"

#: (requirement, part_index, byte_offset) of a fault found in a request's content.
Found = tuple[str, int, int]
Finder = Callable[[bytes, bytes], Found | None]


def _delimiters(body: bytes, dash: bytes) -> list[int]:
    """The offsets of the dash-boundary at the start of the content or after a CRLF."""
    at = [0] if body.startswith(dash) else []
    i = body.find(b"\r\n" + dash)
    while i >= 0:
        at.append(i + 2)
        i = body.find(b"\r\n" + dash, i + 1)
    return at


def _sections(body: bytes, dash: bytes) -> list[tuple[int, bytes]]:
    """Each part's header section (its field lines with their CRLFs) and where it starts."""
    out = []
    for at in _delimiters(body, dash):
        if body[at + len(dash) : at + len(dash) + 2] == b"--":
            break
        start = body.find(b"\r\n", at) + 2
        end = body.find(b"\r\n\r\n", start - 2)
        out.append((start, body[start : (end + 2 if end >= 0 else len(body))]))
    return out


def _mismatch(body: bytes, dash: bytes) -> Found | None:
    """The first part whose Content-Length differs from its body's octets (MB-WIRE-17)."""
    delims = _delimiters(body, dash)
    for i, (start, section) in enumerate(_sections(body, dash)):
        m = re.search(rb"(?im)^content-length:[ \t]*([0-9]+)", section)
        end = delims[i + 1] - 2 if i + 1 < len(delims) else len(body)
        if m and int(m.group(1)) != end - (start + len(section) + 2):
            return "MB-WIRE-17", i, start + m.start()
    return None


def _bad_line(body: bytes, dash: bytes) -> Found | None:
    """The first header line without a colon (MB-PART-11)."""
    for i, (start, section) in enumerate(_sections(body, dash)):
        pos = 0
        for line in section.split(b"\r\n")[:-1]:
            if b":" not in line:
                return "MB-PART-11", i, start + pos
            pos += len(line) + 2
    return None


def _no_method(body: bytes, dash: bytes) -> Found | None:
    """The first part without Http-Method (MB-PART-2), placed at its section's start."""
    for i, (start, section) in enumerate(_sections(body, dash)):
        if not re.search(rb"(?im)^http-method:", section):
            return "MB-PART-2", i, start
    return None


def _unclosed(body: bytes, dash: bytes) -> Found | None:
    """Content without the close delimiter (MB-WIRE-13), at its end, in its last part."""
    if re.search(re.escape(dash) + rb"--[ \t]*(\r\n|$)", body):
        return None
    return "MB-WIRE-13", max(len(_sections(body, dash)) - 1, 0), len(body)


def _other_fault(status: int, limits: tuple[str, ...], find: Finder) -> RespEdit:
    """A `status` naming one of `limits` answered with the document `find` describes."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(req)
        if not is_batch(req) or resp.status != status or b is None:
            return
        found = find(req.body, b"--" + b.encode("latin-1"))

        def rewrite(doc: dict[str, Any]) -> None:
            if found is not None and doc.get("limit") in limits:
                doc.update(requirement=found[0], part_index=found[1], byte_offset=found[2])

        edit_problem(resp, rewrite)

    return edit


def _raised(status: int, limit: str, when: Callable[[RelayRequest], bool]) -> RespEdit:
    """A 400 to a request `when` matches raised to `status` naming `limit`, its document
    otherwise kept."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req) or resp.status != 400 or not when(req):
            return
        resp.status = status
        edit_problem(resp, lambda doc: doc.update(status=status, limit=limit))

    return edit


def _edited(req: RelayRequest) -> bool:
    return req.get(EDITED) is not None


def _declared_cut(req: RelayRequest) -> None:
    """A part Content-Length over max_part_bytes cut to 2: the server sees the mismatch only."""
    if not is_batch(req):
        return

    def cut(m: re.Match[bytes]) -> bytes:
        return m.group(1) + (b"2" if int(m.group(2)) > MAX_PART_BYTES else m.group(2))

    body = re.sub(rb"(?im)^(content-length:[ \t]*)([0-9]+)", cut, req.body)
    if body != req.body:
        req.body = body
        req.headers.append((EDITED, "declared length"))


def _preamble_dropped(req: RelayRequest) -> None:
    """Content over max_batch_bytes without its close delimiter, its preamble dropped: the
    server sees the missing close delimiter only."""
    b = boundary_of(req)
    if not is_batch(req) or b is None or len(req.body) <= MAX_BATCH_BYTES:
        return
    dash = b"--" + b.encode("latin-1")
    if _unclosed(req.body, dash) is None:
        return
    first = req.body.find(b"\r\n" + dash)
    if first > 0:
        req.body = req.body[first + 2 :]
        req.headers.append((EDITED, "preamble"))


def _section_over(req: RelayRequest) -> bool:
    b = boundary_of(req)
    dash = b"--" + (b or "").encode("latin-1")
    sections = _sections(req.body, dash) if b else []
    return any(len(s) > MAX_PART_HEADER_BYTES for _, s in sections)


def _over_max_parts(req: RelayRequest) -> bool:
    b = boundary_of(req)
    return b is not None and len(_sections(req.body, b"--" + b.encode("latin-1"))) > MAX_PARTS


CATCHER = ("fault-pairs-limit-beside-malformed",)
BYTES_CATCHER = ("fault-pairs-batch-bytes-beside-unclosed",)
HEADER_LIMITS = ("max_part_header_bytes", "max_part_fields")

# MB-STATUS-13: "A server that finds more than one fault in a batch request MUST answer with a
# status that one of those faults calls for, and MUST make the problem document's
# `requirement`, `part_index` and `byte_offset` describe that same fault".
P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "declared-length-413-names-mismatch",
        "MB-STATUS-13 a declared-length 413 describing the mismatch",
        CATCHER,
        on_response=_other_fault(413, ("max_part_bytes",), _mismatch),
    ),
    P(
        "header-431-names-bad-line",
        "MB-STATUS-13 a header limit's 431 describing a line without a colon",
        CATCHER,
        on_response=_other_fault(431, HEADER_LIMITS, _bad_line),
    ),
    P(
        "parts-413-names-malformed-part",
        "MB-STATUS-13 a max_parts 413 describing a part without Http-Method",
        CATCHER,
        on_response=_other_fault(413, ("max_parts",), _no_method),
    ),
    P(
        "batch-bytes-413-names-unclosed",
        "MB-STATUS-13 a max_batch_bytes 413 describing the missing close delimiter",
        BYTES_CATCHER,
        on_response=_other_fault(413, ("max_batch_bytes",), _unclosed),
    ),
    P(
        "mismatch-400-raised-to-413",
        "MB-STATUS-13 the mismatch's 400 raised to 413, its document kept",
        CATCHER,
        on_request=_declared_cut,
        on_response=_raised(413, "max_part_bytes", _edited),
    ),
    P(
        "bad-line-400-raised-to-431",
        "MB-STATUS-13 a bad line's 400 raised to 431, its document kept",
        CATCHER,
        on_response=_raised(431, "max_part_header_bytes", _section_over),
    ),
    P(
        "malformed-part-400-raised-to-413",
        "MB-STATUS-13 a malformed part's 400 raised to 413, its document kept",
        CATCHER,
        on_response=_raised(413, "max_parts", _over_max_parts),
    ),
    P(
        "unclosed-400-raised-to-413",
        "MB-STATUS-13 a missing close delimiter's 400 raised to 413, its document kept",
        BYTES_CATCHER,
        on_request=_preamble_dropped,
        on_response=_raised(413, "max_batch_bytes", _edited),
    ),
)
