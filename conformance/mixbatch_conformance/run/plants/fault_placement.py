"""Planted servers whose validation depends on where a faulty part stands or on the mode a batch
asks for, or that place a fault elsewhere than spec 5.3's convention (spec 3.1, 3.2, 5.1, 5.3:
MB-WIRE-17, MB-PART-11, MB-STATUS-4, MB-STATUS-2, MB-WIRE-2, MB-STATUS-9).

Each plant of the first kind lacks a validation on one path only: a part that is not the last
(its body ended by an inner delimiter), the first part of several, the last part's index in a
problem document, a batch asking for `batch-on-error=stop`, a batch asking for
`Batch-Mode: atomic`. The same fault on the other paths is still refused, so only a check that
sends it on the planted path sees the difference.

The placement plants edit the `byte_offset` or `part_index` of the server's own problem
document for one kind of fault: a repeated Content-Length at its first line, a repeated field
at the line after its first one or counted without the preamble, a limit on a header section
at the line that crosses it or counted without the preamble, a forbidden field at its
section's first octet, a delimiter line's fault at the CRLF before it, and a close delimiter's
in the last part rather than the one it would open.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    RespEdit,
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
REPEATED = ("repeated-part-fields-placed-at-repeating-line",)
DELIMITERS = ("delimiter-faults-placed-in-every-position",)
SECTION_LIMITS = ("section-limits-placed-at-section-start",)
#: The fields a request part carries once (MB-PART-2, MB-PART-4, MB-WIRE-20).
SINGLETONS = (b"http-method", b"content-id", b"content-length")
#: The limits on one part header section (spec 9.1), each with the reference server's value,
#: for a problem document without a `value`.
SECTION_LIMITS_DEFAULT = {"max_part_header_bytes": 8192, "max_part_fields": 100}
SECTION_LIMIT_NAMES = tuple(SECTION_LIMITS_DEFAULT)
Line = tuple[int, bytes]


def _dash(req: RelayRequest) -> bytes | None:
    b = boundary_of(req)
    return b"--" + b.encode("latin-1") if b and req.method == "POST" else None


def _first_delimiter(req: RelayRequest) -> int:
    """The offset of the first delimiter line's first hyphen: the preamble's length."""
    dash = _dash(req)
    if dash is None or req.body.startswith(dash):
        return 0
    at = req.body.find(b"\r\n" + dash)
    return at + 2 if at >= 0 else 0


def _sections(req: RelayRequest) -> list[list[Line]]:
    """Each part's header section as its field lines, each with the offset of its first octet
    in the content (CRLF-ended lines only: enough for the faults these plants place)."""
    dash = _dash(req)
    if dash is None:
        return []
    body = req.body
    pos = _first_delimiter(req)
    out: list[list[Line]] = []
    while body.startswith(dash, pos) and not body.startswith(dash + b"--", pos):
        start = body.find(b"\r\n", pos) + 2
        end = body.find(b"\r\n\r\n", start - 2)
        if start < 2 or end < 0:
            break
        lines: list[Line] = []
        at = start
        for text in body[start:end].split(b"\r\n") if end >= start else []:
            lines.append((at, text))
            at += len(text) + 2
        out.append(lines)
        nxt = body.find(b"\r\n" + dash, end + 2)
        if nxt < 0:
            break
        pos = nxt + 2
    return out


def _name(text: bytes) -> bytes:
    return text.partition(b":")[0].strip().lower()


def _repeated(lines: list[Line]) -> list[Line]:
    """The lines of a singleton field that some line before them already carries, in order."""
    seen: set[bytes] = set()
    out = []
    for at, text in lines:
        name = _name(text)
        if name in SINGLETONS:
            if name in seen:
                out.append((at, text))
            seen.add(name)
    return out


def _faulty_section(req: RelayRequest, doc: dict[str, Any]) -> list[Line] | None:
    """The header section of the part the problem document names."""
    sections = _sections(req)
    index = doc.get("part_index")
    if not isinstance(index, int) or not 0 <= index < len(sections):
        return None
    return sections[index]


def _place_repeat(where: Callable[[RelayRequest, list[Line], Line], int | None]) -> RespEdit:
    """A refusal of a part that repeats a singleton field, its byte_offset moved to
    `where(request, section, first repeating line)`."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        doc = problem_doc(resp) if resp.status == 400 else None
        lines = _faulty_section(req, doc) if doc is not None else None
        repeats = _repeated(lines) if lines else []
        if doc is None or not lines or not repeats or not isinstance(doc.get("byte_offset"), int):
            return
        at = where(req, lines, repeats[0])
        if at is not None:
            doc["byte_offset"] = at
            resp.body = json.dumps(doc).encode()

    return edit


def _first_length_line(req: RelayRequest, lines: list[Line], repeat: Line) -> int | None:
    """The first Content-Length line, when that is the field repeated."""
    if _name(repeat[1]) != b"content-length":
        return None
    return next(at for at, text in lines if _name(text) == b"content-length")


def _after_first_line(req: RelayRequest, lines: list[Line], repeat: Line) -> int | None:
    """The line after the first line of the repeated field."""
    name = _name(repeat[1])
    first = next(i for i, (_, text) in enumerate(lines) if _name(text) == name)
    return lines[first + 1][0]


def _repeat_without_preamble(req: RelayRequest, lines: list[Line], repeat: Line) -> int | None:
    preamble = _first_delimiter(req)
    return repeat[0] - preamble if preamble else None


def _place_limit(
    names: tuple[str, ...], where: Callable[[RelayRequest, list[Line], int], int | None]
) -> RespEdit:
    """A 431 naming one of the limits `names`, its byte_offset moved to `where(request,
    section, limit)`; the limit is the document's `value`, or the reference default."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        doc = problem_doc(resp) if resp.status == 431 else None
        if (
            doc is None
            or doc.get("limit") not in names
            or not isinstance(doc.get("byte_offset"), int)
        ):
            return
        lines = _faulty_section(req, doc)
        value = doc.get("value")
        limit = value if isinstance(value, int) else SECTION_LIMITS_DEFAULT[doc["limit"]]
        at = where(req, lines, limit) if lines else None
        if at is not None:
            doc["byte_offset"] = at
            resp.body = json.dumps(doc).encode()

    return edit


def _line_past_count(req: RelayRequest, lines: list[Line], limit: int) -> int | None:
    """The field line that passes a limit on the number of field lines."""
    return lines[limit][0] if len(lines) > limit else None


def _line_past_octets(req: RelayRequest, lines: list[Line], limit: int) -> int | None:
    """The field line whose octets, with its CRLF, pass a limit on the section's octets."""
    start = lines[0][0]
    return next((at for at, text in lines if at + len(text) + 2 - start > limit), None)


def _section_without_preamble(req: RelayRequest, lines: list[Line], limit: int) -> int | None:
    preamble = _first_delimiter(req)
    return lines[0][0] - preamble if preamble else None


def _forbidden_at_section(req: RelayRequest, resp: RelayResponse) -> None:
    """A forbidden field's refusal placed at its section's first octet."""
    doc = problem_doc(resp) if resp.status == 400 else None
    if doc is None or doc.get("requirement") != "MB-PART-10":
        return
    lines = _faulty_section(req, doc)
    if lines and isinstance(doc.get("byte_offset"), int):
        doc["byte_offset"] = lines[0][0]
        resp.body = json.dumps(doc).encode()


def _delimiter_fault(req: RelayRequest, doc: dict[str, Any]) -> int | None:
    """The byte_offset of a problem that places a fault on a delimiter line, else None."""
    dash = _dash(req)
    at = doc.get("byte_offset")
    if dash is None or not isinstance(at, int) or not req.body.startswith(dash, at):
        return None
    return at if at == 0 or req.body[at - 2 : at] == b"\r\n" else None


def _delimiter_at_crlf(req: RelayRequest, resp: RelayResponse) -> None:
    """A delimiter line's fault placed at the CRLF before it, which belongs to the part before."""
    doc = problem_doc(resp) if resp.status == 400 else None
    at = _delimiter_fault(req, doc) if doc is not None else None
    if doc is not None and at:
        doc["byte_offset"] = at - 2
        resp.body = json.dumps(doc).encode()


def _close_in_last_part(req: RelayRequest, resp: RelayResponse) -> None:
    """A close delimiter's fault placed in the last part, not the one the line would open."""
    doc = problem_doc(resp) if resp.status == 400 else None
    dash = _dash(req)
    if doc is None or dash is None:
        return
    at = _delimiter_fault(req, doc)
    index = doc.get("part_index")
    if at is None or not isinstance(index, int) or index < 1:
        return
    if req.body.startswith(dash + b"--", at):
        doc["part_index"] = index - 1
        resp.body = json.dumps(doc).encode()


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
    Mutation(
        "repeated-length-placed-at-first-line",
        "MB-STATUS-4 a part's repeated Content-Length placed at its first line, not the repeat",
        (*POSITIONS, *REPEATED),
        on_response=_place_repeat(_first_length_line),
    ),
    Mutation(
        "repeated-field-placed-after-first-line",
        "MB-STATUS-4 a repeated field placed at the line after its first one, not the repeat",
        REPEATED,
        on_response=_place_repeat(_after_first_line),
    ),
    Mutation(
        "repeated-field-offset-without-preamble",
        "MB-STATUS-4 a repeated field's byte_offset counted from the first delimiter line",
        (*POSITIONS, *REPEATED),
        on_response=_place_repeat(_repeat_without_preamble),
    ),
    Mutation(
        "field-limit-placed-at-crossing-line",
        "MB-STATUS-4 a section over max_part_fields placed at the line past the limit",
        SECTION_LIMITS,
        on_response=_place_limit(("max_part_fields",), _line_past_count),
    ),
    Mutation(
        "header-limit-placed-at-crossing-line",
        "MB-STATUS-4 a section over max_part_header_bytes placed at the line that crosses it",
        SECTION_LIMITS,
        on_response=_place_limit(("max_part_header_bytes",), _line_past_octets),
    ),
    Mutation(
        "section-limit-offset-without-preamble",
        "MB-STATUS-4 a section limit's byte_offset counted from the first delimiter line",
        SECTION_LIMITS,
        on_response=_place_limit(SECTION_LIMIT_NAMES, _section_without_preamble),
    ),
    Mutation(
        "forbidden-field-placed-at-section-start",
        "MB-STATUS-4 a forbidden field placed at its header section's first octet, not its line",
        POSITIONS,
        on_response=_forbidden_at_section,
    ),
    Mutation(
        "delimiter-fault-placed-at-crlf-before",
        "MB-STATUS-4 a delimiter line's fault placed at the CRLF before the line",
        DELIMITERS,
        on_response=_delimiter_at_crlf,
    ),
    Mutation(
        "close-delimiter-fault-in-last-part",
        "MB-STATUS-4 a close delimiter's fault placed in the last part, not the one it would open",
        DELIMITERS,
        on_response=_close_in_last_part,
    ),
)
