"""A faulty part is refused wherever it stands and whatever mode the batch asks for, and its
problem document places the fault where spec 5.3's convention does (spec 3.1, 3.2, 5.1, 5.3).

Theory of operation: the envelope cases send most part faults in a batch of one part, whose
part ends at the close delimiter. A parser meets that part on one path (the last part, the
close delimiter) and every other part on another (an inner delimiter), and a server that
validates a part as it dispatches it meets a fault in a later part only after the earlier ones
ran. A server that counts offsets from the first delimiter rather than from the start of the
content, or from the start of the part, is right only for a first part with no preamble. The
checks here place faulty parts (`_shared.part_faults`) elsewhere:

- `part-faults-refused-in-every-position`: each fault as the first, the middle and the last of
  three parts, the other two valid GETs, without a preamble and after one. Each batch is
  answered 400 with a problem document (MB-STATUS-2, MB-STATUS-4, the fault's own
  requirement); a `part_index` it gives is the faulty part's, and a `byte_offset` it gives is
  where spec 5.3 puts the fault: the first octet of the field line at fault, of the
  `Content-Length` line for a mismatch, or of the header section for a missing field.
- `repeated-part-fields-placed-at-repeating-line`: Http-Method, Content-Id and Content-Length,
  the fields a part carries once, each on two lines (adjacent, with lines between, in another
  spelling) and on three, in the same positions: a `byte_offset` is the line that repeats the
  field, never the first of its lines.
- `delimiter-faults-placed-in-every-position`: a delimiter line with text after its boundary
  or ending in a bare LF, opening the first, the middle or the last part, a close delimiter
  with text after it, and content without its close delimiter, with and without a preamble:
  the fault is at the line's first hyphen, in the part the line opens or would open, and a
  missing close delimiter at the content's length, in the last part.
- `section-limits-placed-at-section-start`: a header section over `max_part_header_bytes` or
  `max_part_fields` in the same positions, the line that crosses the limit being the first,
  one in the middle, the last or one with lines after it: a limit on the section is placed at
  the section's first octet, wherever the crossing line is.
- `envelope-faults-refused-in-every-mode`: the faults, a target on another authority, TRACE,
  the batch endpoint as a target, content of another media type and an Accept that admits no
  representation, each in the middle of three parts of a batch asking for
  `Prefer: batch-on-error=stop` and, in another, for `Batch-Mode: atomic` (each where the
  target claims the profile). A mode says what happens when a part fails while the batch runs;
  a malformed envelope runs nothing (MB-STATUS-2), so each is refused as without a mode: a
  server that turns a fault found at dispatch into a failing part, or that validates an
  atomic batch inside its transaction, answers 200.

MB-STATUS-4 gives `part_index` and `byte_offset` "when the server knows them": a member left
out is not judged. All are read-only: the parts GET the ok resource, and a refused batch runs
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from mixbatch_conformance.checks._shared.limit_cases import BOUNDARY as LIMIT_BOUNDARY
from mixbatch_conformance.checks._shared.limit_cases import (
    envelope,
    header_section,
    part,
    refused,
    within,
)
from mixbatch_conformance.checks._shared.part_faults import (
    PartFault,
    part_faults,
    repeated_fields,
)
from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-positions-5d0c2b7e94a1f368"
POSITIONS = ("first", "middle", "last")
#: No preamble, and one line of it, which a receiver ignores (MB-WIRE-9) but every offset counts:
#: MB-STATUS-4's `byte_offset` is in "octets from the start of the request content".
PREAMBLES = (b"", b"mb-suite preamble, to be ignored\r\n")
#: The most field lines, and octets, one section over a limit is sent with.
MAX_FIELDS_SENT = 10_000
MAX_SECTION_SENT = 1_000_000
#: The modes a batch can ask for, each with the profile that offers it.
MODES = (
    ("error-policy", ("Prefer", "batch-on-error=stop")),
    ("atomic", ("Batch-Mode", "atomic")),
)


def _batch(sections: list[tuple[str, str]], preamble: bytes = b"") -> tuple[bytes, list[int]]:
    """The content of a batch of `sections` (header section, body) after `preamble`, and the
    offset of each part's header section in it."""
    out = preamble
    starts: list[int] = []
    for i, (section, body) in enumerate(sections):
        out += f"--{BOUNDARY}\r\n".encode() if i == 0 else f"\r\n--{BOUNDARY}\r\n".encode()
        starts.append(len(out))
        out += f"{section}\r\n{body}".encode("latin-1")
    return out + f"\r\n--{BOUNDARY}--".encode(), starts


def _send(
    ctx: Context, judge: Judge, content: bytes, headers: tuple[tuple[str, str], ...] = ()
) -> Response:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *headers]
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))


def _expect_placed(
    judge: Judge, label: str, resp: Response, index: int, places: Iterable[int]
) -> None:
    """A problem document's part_index and byte_offset, where given, are the faulty part's
    index and one of `places`, the offsets in the content where spec 5.3 puts the fault."""
    doc = problem_of(resp) or {}
    # MB-STATUS-4: "with `part_index` (from 0) and `byte_offset` (octets from the start of the
    # request content) members when the server knows them"; spec 5.3 fixes their values
    # ("the offset of the line's first octet", "the offset of the section's first octet", "the
    # line ... belongs to the part it opens or would open").
    if doc.get("part_index") is not None:
        judge.expect(f"{label}: part_index", doc.get("part_index"), {index}, "MB-STATUS-4")
    offset = doc.get("byte_offset")
    if offset is not None:
        allowed = sorted(set(places))
        judge.expect_true(
            f"{label}: byte_offset",
            is_json_integer(offset) and offset in allowed,
            repr(offset),
            " or ".join(str(n) for n in allowed),
            "MB-STATUS-4",
        )


def _place_faults(ctx: Context, judge: Judge, faults: list[PartFault], ok: str) -> None:
    """Each fault as the first, the middle and the last of three parts, without a preamble and
    after one: refused with 400, the problem placing it by spec 5.3."""
    valid = (f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n", "")
    for fault in faults:
        for preamble in PREAMBLES:
            for index, position in enumerate(POSITIONS):
                sections = [valid, valid, valid]
                sections[index] = (fault.section, fault.body)
                content, starts = _batch(sections, preamble)
                resp = _send(ctx, judge, content)
                label = f"{fault.what}, {position} part" + (
                    ", after a preamble" if preamble else ""
                )
                judge.note(f"{label}: {resp.status}")
                # MB-STATUS-2: "answer a batch request whose envelope is malformed ... with
                # 400, before any part runs"; the fault's own requirement says which rule it
                # breaks, in any part of the batch.
                expect_rejected(judge, resp, {400}, fault.requirement)
                if resp.status == 400:
                    places = (starts[index] + at for at in fault.places())
                    _expect_placed(judge, label, resp, index, places)


@checker(
    "part-faults-refused-in-every-position",
    (
        "MB-STATUS-2",
        "MB-STATUS-4",
        "MB-WIRE-17",
        "MB-WIRE-20",
        "MB-PART-2",
        "MB-PART-4",
        "MB-PART-10",
        "MB-PART-11",
        "MB-WIRE-8",
    ),
    "A part with a wrong or malformed Content-Length, a missing, repeated or malformed Http-Method or Content-Id, a forbidden field, a malformed field line or a bare LF or CR is refused with 400 as the first, the middle and the last of three parts, with and without a preamble, its problem document placing the fault where spec 5.3 does: that part, and the first octet of the line at fault or of the section for a missing field.",
    state=State.READ_ONLY,
)
def part_faults_refused_in_every_position(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    _place_faults(ctx, judge, part_faults(ok), ok)


@checker(
    "repeated-part-fields-placed-at-repeating-line",
    ("MB-STATUS-4", "MB-PART-2", "MB-PART-4", "MB-WIRE-20"),
    "A part carrying Http-Method, Content-Id or Content-Length on two lines (the repeat as the second or a later line, in the first line's spelling or another) or on three is refused with 400 as the first, the middle and the last of three parts, with and without a preamble, its problem document placing the fault at that part and at the first octet of a line that repeats the field, never the first of its lines.",
    state=State.READ_ONLY,
)
def repeated_part_fields_placed_at_repeating_line(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    _place_faults(ctx, judge, repeated_fields(ok), ok)


#: Delimiter lines with a fault after the dash-boundary, each with the requirement that
#: refuses it: MB-WIRE-19, "a delimiter line that carries anything after the dash-boundary
#: other than transport padding"; MB-WIRE-8, "a bare LF or a bare CR as a line terminator in a
#: delimiter line".
OPENING_FAULTS = (
    ("text after the boundary", "MB-WIRE-19", b"x\r\n"),
    ("text after transport padding", "MB-WIRE-19", b" \tx\r\n"),
    ("a bare LF ending the line", "MB-WIRE-8", b"\n"),
)
#: MB-WIRE-19: "(or, for the close delimiter, the two hyphens followed by transport padding)".
CLOSING_FAULTS = (
    ("text after the close delimiter", "MB-WIRE-19", b"x"),
    ("text after the close delimiter's padding", "MB-WIRE-19", b" \tx\r\n"),
)


def _delimited(
    ok: str, preamble: bytes, faulty: int | None, tail: bytes, close: bytes = b""
) -> tuple[bytes, int]:
    """Three valid GET parts after `preamble`, the delimiter line opening part `faulty` ended
    by `tail` instead of its CRLF, then the close delimiter followed by `close`; and the offset
    of the faulty line's first hyphen (of the close delimiter when `faulty` is None)."""
    section = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n".encode("latin-1")
    dash = f"--{BOUNDARY}".encode()
    out, at = preamble, 0
    for i in range(len(POSITIONS)):
        out += b"\r\n" if i else b""
        if i == faulty:
            at = len(out)
        out += dash + (tail if i == faulty else b"\r\n") + section
    out += b"\r\n"
    if faulty is None:
        at = len(out)
    return out + dash + b"--" + close, at


@checker(
    "delimiter-faults-placed-in-every-position",
    ("MB-STATUS-4", "MB-WIRE-19", "MB-WIRE-8", "MB-WIRE-13"),
    "A delimiter line with text after its boundary or ending in a bare LF, opening the first, the middle or the last of three parts, a close delimiter with text after it, and content ending without its close delimiter, each with and without a preamble, are refused with 400, the problem document placing the fault where spec 5.3 does: at the line's first hyphen in the part it opens or would open, and at the content's length in the last part.",
    state=State.READ_ONLY,
)
def delimiter_faults_placed_in_every_position(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    count = len(POSITIONS)
    for preamble in PREAMBLES:
        after = ", after a preamble" if preamble else ""
        cases: list[tuple[str, str, bytes, int, int]] = []
        for what, requirement, tail in OPENING_FAULTS:
            for index, position in enumerate(POSITIONS):
                content, at = _delimited(ok, preamble, index, tail)
                cases.append((f"{what}, {position} part", requirement, content, index, at))
        for what, requirement, close in CLOSING_FAULTS:
            content, at = _delimited(ok, preamble, None, b"", close)
            cases.append((what, requirement, content, count, at))
        # MB-WIRE-13: "answer 400 to a batch request whose content ends without the close
        # delimiter"; spec 5.3: "a missing close delimiter: the length of the content, in the
        # last part".
        content, _ = _delimited(ok, preamble, None, b"")
        unclosed = content[: -len(f"\r\n--{BOUNDARY}--")]
        cases.append(("no close delimiter", "MB-WIRE-13", unclosed, count - 1, len(unclosed)))
        for what, requirement, content, index, at in cases:
            resp = _send(ctx, judge, content)
            label = what + after
            judge.note(f"{label}: {resp.status}")
            expect_rejected(judge, resp, {400}, requirement)
            if resp.status == 400:
                # Spec 5.3: "a fault on a delimiter line: the offset of the line's first `-`
                # ...; the line, the close delimiter included, belongs to the part it opens or
                # would open".
                _expect_placed(judge, label, resp, index, (at,))


def _section_limit_cases(ctx: Context, judge: Judge, ok: str) -> list[tuple[str, str, list[bytes]]]:
    """(limit, what, field lines) for header sections over each published section limit
    that the other published limits let through, the line that crosses it in several places."""
    fields = ctx.limit("max_part_fields")
    octets = ctx.limit("max_part_header_bytes")
    hm = b"Http-Method: GET\r\n"
    ci = f"Content-Id: <{ok}>\r\n".encode("latin-1")
    out: list[tuple[str, str, list[bytes]]] = []
    if fields is not None and 2 <= fields <= MAX_FIELDS_SENT:
        filler = [f"X-F{i}: v\r\n".encode() for i in range(fields + 2)]
        over = [
            # MB-LIMIT-5 counts "the field lines of one part header section, `Http-Method` and
            # `Content-Id` included" (spec 9.1): the line past the limit is whichever comes
            # at that count.
            ("a filler line crossing it", [hm, ci, *filler[: fields - 1]]),
            ("the Content-Id line crossing it", [hm, *filler[: fields - 1], ci]),
            ("the Http-Method line crossing it", [ci, *filler[: fields - 1], hm]),
            ("lines after the crossing one", [hm, ci, *filler[: fields + 2]]),
        ]
        if octets is None or all(len(b"".join(lines)) <= octets for _, lines in over):
            out += [("max_part_fields", what, lines) for what, lines in over]
        else:
            judge.note(f"{fields + 4} field lines pass max_part_header_bytes {octets}")
    empty = len(b"X-Fill: \r\n")
    if (
        octets is not None
        and len(hm) + len(ci) + empty <= octets <= MAX_SECTION_SENT
        and (fields is None or fields >= 4)
    ):

        def fill(n: int) -> bytes:
            return b"X-Fill: " + b"f" * (n - empty) + b"\r\n"

        # MB-STATUS-3 counts "each field line with the CRLF that ends it" (spec 9.1): one
        # octet over with the last line crossing the limit, or crossed by the first line, by a
        # filler line in the middle, or by the Content-Id line with a line after it.
        rest = octets + 1 - len(hm) - len(ci)
        out += [
            ("max_part_header_bytes", "the last line crossing it", [hm, ci, fill(rest)]),
            ("max_part_header_bytes", "the first line crossing it", [fill(octets + 1), hm, ci]),
            ("max_part_header_bytes", "a middle line crossing it", [hm, fill(octets), ci]),
            (
                "max_part_header_bytes",
                "the Content-Id line crossing it",
                [hm, fill(octets - len(hm) - len(ci) // 2), ci, fill(16)],
            ),
        ]
    if not out:
        judge.not_applicable(
            "the target publishes neither max_part_fields nor max_part_header_bytes within "
            "what the suite sends"
        )
    return out


@checker(
    "section-limits-placed-at-section-start",
    ("MB-STATUS-4", "MB-STATUS-3", "MB-LIMIT-5"),
    "A part header section over the published max_part_fields or max_part_header_bytes, the line that crosses the limit being the first, a middle or the last line, Http-Method, Content-Id or a filler line, as the first, the middle and the last of three parts, with and without a preamble, is refused with 431 naming the limit, the problem document placing the fault at that part and at the first octet of its header section.",
    state=State.READ_ONLY,
)
def section_limits_placed_at_section_start(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    valid = part(header_section(ok, fields=2))
    dash = f"--{LIMIT_BOUNDARY}".encode()
    for name, what, lines in _section_limit_cases(ctx, judge, ok):
        faulty = part(b"".join(lines))
        for preamble in PREAMBLES:
            for index, position in enumerate(POSITIONS):
                parts = [valid, valid, valid]
                parts[index] = faulty
                content = preamble + envelope(parts)
                # The section begins after the delimiter line that opens its part; each part
                # before it is followed by the CRLF and the delimiter line of the next.
                start = len(preamble) + len(dash) + 2
                start += sum(len(p) + len(dash) + 4 for p in parts[:index])
                after = ", after a preamble" if preamble else ""
                judge.note(f"{name}, {what}, {position} part{after}")
                # Within every other published limit: the section over max_part_fields is the
                # fault, so only the valid parts' field lines are counted against it.
                within(ctx, judge, content, len(parts), 0 if name == "max_part_fields" else 4)
                # Spec 5.3: "a fault of a header section as a whole (a missing field, a limit
                # on the section or the part): the offset of the section's first octet".
                refused(
                    ctx,
                    judge,
                    content,
                    431,
                    name,
                    at=start,
                    must_name="MB-LIMIT-5" if name == "max_part_fields" else None,
                    index=index,
                )


def _mode_faults(ctx: Context, judge: Judge, ok: str) -> list[tuple[PartFault, int]]:
    """(fault, status) for the part faults and the targets refused before any part runs."""
    other = f"http://elsewhere.invalid{ok}"
    faults = [(f, 400) for f in part_faults(ok)]
    faults += [
        # MB-SUB-2, MB-SUB-3, MB-SUB-4: targets and methods refused with 400 (spec 5.1's table);
        # spec 5.3 places "a bad value, a rejected target" at the first octet of its line.
        (
            PartFault(
                "a target on another authority",
                "MB-SUB-2",
                f"Http-Method: GET\r\nContent-Id: <{other}>\r\n",
                "",
                (1,),
            ),
            400,
        ),
        (
            PartFault(
                "a TRACE part",
                "MB-SUB-3",
                f"Content-Id: <{ok}>\r\nHttp-Method: TRACE\r\n",
                "",
                (1,),
            ),
            400,
        ),
        (
            PartFault(
                "the batch endpoint as a target",
                "MB-SUB-4",
                f"Http-Method: GET\r\nContent-Id: <{ctx.batch_path}>\r\n",
                "",
                (1,),
            ),
            400,
        ),
    ]
    return faults


@checker(
    "envelope-faults-refused-in-every-mode",
    ("MB-STATUS-2", "MB-WIRE-2", "MB-STATUS-9"),
    "Under Prefer batch-on-error=stop and Batch-Mode atomic, a malformed or refused part in the middle of a batch, content of another media type and an Accept admitting no representation are refused as without a mode (400, 415 with Accept-Post, 406), never answered as a processed batch.",
    state=State.READ_ONLY,
)
def envelope_faults_refused_in_every_mode(ctx: Context, judge: Judge) -> None:
    modes = [field for profile, field in MODES if ctx.target.claims(profile)]
    if not modes:
        judge.not_applicable("the target claims neither the error-policy nor the atomic profile")
    ok = ctx.path(ctx.resource(judge, "ok"))
    valid = (f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n", "")
    good, _ = _batch([valid, valid, valid])
    for name, value in modes:
        mode = f"{name}: {value}"
        for fault, status in _mode_faults(ctx, judge, ok):
            content, starts = _batch([valid, (fault.section, fault.body), valid])
            resp = _send(ctx, judge, content, ((name, value),))
            label = f"{mode}: {fault.what}"
            judge.note(f"{label}: {resp.status}")
            # MB-STATUS-2: a malformed envelope, "a forbidden field, a rejected target", is
            # answered "with 400, before any part runs": a mode governs failing parts of a
            # batch that runs, and this one runs nothing. The fault's own requirement is
            # judged on the batch without a mode; what the mode can break is this.
            expect_rejected(judge, resp, {status}, "MB-STATUS-2")
            if resp.status == status:
                _expect_placed(judge, label, resp, 1, (starts[1] + at for at in fault.places()))
        # MB-WIRE-2: "answer a batch request whose media type is not `multipart/mixed` with
        # 415 (Unsupported Media Type) and an `Accept-Post: multipart/mixed` field".
        head = (("Content-Type", "text/plain"), (name, value))
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, list(head), good))
        judge.note(f"{mode}: text/plain content: {resp.status}")
        expect_rejected(judge, resp, {415}, "MB-WIRE-2", accept_post=True)
        # MB-STATUS-9: "answer 406 (Not Acceptable) to a batch request whose `Accept` field
        # admits none of the batch representations the server offers".
        resp = _send(ctx, judge, good, ((name, value), ("Accept", "text/html")))
        judge.note(f"{mode}: Accept text/html: {resp.status}")
        expect_rejected(judge, resp, {406}, "MB-STATUS-9")
