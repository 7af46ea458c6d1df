"""A faulty part is refused wherever it stands and whatever mode the batch asks for (spec 3.1,
3.2, 5.1, 5.3).

Theory of operation: the envelope cases send most part faults in a batch of one part, whose
part ends at the close delimiter. A parser meets that part on one path (the last part, the
close delimiter) and every other part on another (an inner delimiter), and a server that
validates a part as it dispatches it meets a fault in a later part only after the earlier ones
ran. Two checks place the same faulty parts (`_shared.part_faults`) elsewhere:

- `part-faults-refused-in-every-position`: each fault as the first, the middle and the last of
  three parts, the other two valid GETs. Each batch is answered 400 with a problem document
  (MB-STATUS-2, MB-STATUS-4, the fault's own requirement); a `part_index` it gives is the
  faulty part's, and a `byte_offset` falls inside that part's header section and body, which
  is where spec 5.3 places every fault these parts hold.
- `envelope-faults-refused-in-every-mode`: the faults, a target on another authority, TRACE,
  the batch endpoint as a target, content of another media type and an Accept that admits no
  representation, each in the middle of three parts of a batch asking for
  `Prefer: batch-on-error=stop` and, in another, for `Batch-Mode: atomic` (each where the
  target claims the profile). A mode says what happens when a part fails while the batch runs;
  a malformed envelope runs nothing (MB-STATUS-2), so each is refused as without a mode: a
  server that turns a fault found at dispatch into a failing part, or that validates an
  atomic batch inside its transaction, answers 200.

Both are read-only: the parts GET the ok resource, and a refused batch runs nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.part_faults import PartFault, part_faults
from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-positions-5d0c2b7e94a1f368"
POSITIONS = ("first", "middle", "last")
#: The modes a batch can ask for, each with the profile that offers it.
MODES = (
    ("error-policy", ("Prefer", "batch-on-error=stop")),
    ("atomic", ("Batch-Mode", "atomic")),
)


def _batch(sections: list[tuple[str, str]]) -> tuple[bytes, list[tuple[int, int]]]:
    """The content of a batch of `sections` (header section, body), and each part's span: from
    the first octet of its header section to the end of its body."""
    out = b""
    spans: list[tuple[int, int]] = []
    for section, body in sections:
        out += f"--{BOUNDARY}\r\n".encode() if not out else f"\r\n--{BOUNDARY}\r\n".encode()
        start = len(out)
        out += f"{section}\r\n{body}".encode("latin-1")
        spans.append((start, len(out)))
    return out + f"\r\n--{BOUNDARY}--".encode(), spans


def _send(
    ctx: Context, judge: Judge, content: bytes, headers: tuple[tuple[str, str], ...] = ()
) -> Response:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *headers]
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))


def _expect_located(
    judge: Judge, label: str, resp: Response, index: int, span: tuple[int, int]
) -> None:
    """A problem document's part_index and byte_offset, where given, name the faulty part."""
    doc = problem_of(resp) or {}
    # MB-STATUS-4: "with `part_index` (from 0) and `byte_offset` (octets from the start of the
    # request content) members when the server knows them"; spec 5.3 places a fault in a
    # field line at "the offset of the line's first octet" and one of a header section as a
    # whole at "the offset of the section's first octet": inside the faulty part either way.
    if doc.get("part_index") is not None:
        judge.expect(f"{label}: part_index", doc.get("part_index"), {index}, "MB-STATUS-4")
    offset = doc.get("byte_offset")
    if offset is not None:
        start, end = span
        judge.expect_true(
            f"{label}: byte_offset",
            is_json_integer(offset) and start <= offset <= end,
            repr(offset),
            f"an offset in the faulty part's header section or body, {start} to {end}",
            "MB-STATUS-4",
        )


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
    "A part with a wrong or malformed Content-Length, a missing or repeated Http-Method or Content-Id, a forbidden field, a malformed field line or a bare LF is refused with 400 as the first, the middle and the last of three parts, its problem document naming that part where it names one.",
    state=State.READ_ONLY,
)
def part_faults_refused_in_every_position(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    valid = (f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n", "")
    for fault in part_faults(ok):
        for index, position in enumerate(POSITIONS):
            sections = [valid, valid, valid]
            sections[index] = (fault.section, fault.body)
            content, spans = _batch(sections)
            resp = _send(ctx, judge, content)
            label = f"{fault.what}, {position} part"
            judge.note(f"{label}: {resp.status}")
            # MB-STATUS-2: "answer a batch request whose envelope is malformed ... with 400,
            # before any part runs"; the fault's own requirement says which rule it breaks, in
            # any part of the batch.
            expect_rejected(judge, resp, {400}, fault.requirement)
            if resp.status == 400:
                _expect_located(judge, label, resp, index, spans[index])


def _mode_faults(ctx: Context, judge: Judge, ok: str) -> list[tuple[PartFault, int]]:
    """(fault, status) for the part faults and the targets refused before any part runs."""
    other = f"http://elsewhere.invalid{ok}"
    faults = [(f, 400) for f in part_faults(ok)]
    faults += [
        # MB-SUB-2, MB-SUB-3, MB-SUB-4: targets and methods refused with 400 (spec 5.1's table).
        (
            PartFault(
                "a target on another authority",
                "MB-SUB-2",
                f"Http-Method: GET\r\nContent-Id: <{other}>\r\n",
            ),
            400,
        ),
        (
            PartFault("a TRACE part", "MB-SUB-3", f"Http-Method: TRACE\r\nContent-Id: <{ok}>\r\n"),
            400,
        ),
        (
            PartFault(
                "the batch endpoint as a target",
                "MB-SUB-4",
                f"Http-Method: GET\r\nContent-Id: <{ctx.batch_path}>\r\n",
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
            content, spans = _batch([valid, (fault.section, fault.body), valid])
            resp = _send(ctx, judge, content, ((name, value),))
            label = f"{mode}: {fault.what}"
            judge.note(f"{label}: {resp.status}")
            # MB-STATUS-2: a malformed envelope, "a forbidden field, a rejected target", is
            # answered "with 400, before any part runs": a mode governs failing parts of a
            # batch that runs, and this one runs nothing. The fault's own requirement is
            # judged on the batch without a mode; what the mode can break is this.
            expect_rejected(judge, resp, {status}, "MB-STATUS-2")
            if resp.status == status:
                _expect_located(judge, label, resp, 1, spans[1])
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
