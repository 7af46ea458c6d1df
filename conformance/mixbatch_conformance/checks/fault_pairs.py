"""Batch requests with more than one fault: the status is one a fault calls for, and the
problem document describes that same fault (MB-STATUS-13).

Theory of operation: each fault of `FAULTS` is one edit of a valid one-part batch (a header
field, the media type, the content) and the statuses the spec's table (5.1) gives it, with
the requirements a problem for it may name. The check first sends each fault alone, to learn
how this server describes it (MB-STATUS-4: its `requirement`, `part_index` and
`byte_offset`), then every pair of `PAIRS` and one triple, and, when the target publishes
max_part_header_bytes, the pairs of `HEADER_PAIRS` with a part header section over it. For each, MB-STATUS-13: "answer
with a status that one of those faults calls for, and ... make the problem document's
`requirement`, `part_index` and `byte_offset` describe that same fault": the status picks the
fault, and the document must say what the same fault alone says, or name another requirement
the table gives that status. A server that takes one fault's status and another's document
(the status of the last check it ran, the document of the first) fails here.

`fault-pairs-limit-beside-malformed` and `fault-pairs-batch-bytes-beside-unclosed` do the
same where one fault is a published limit exceeded and the other a malformed envelope, the
pairs spec 9.1 and 5.1 give two statuses: a part whose Content-Length declares more than
max_part_bytes over a one-octet body (413 by the declared size, spec 9.1, or 400 for the length
that differs from the body, MB-WIRE-17); a header section over max_part_header_bytes, or over
max_part_fields, beside a line without a colon in the same part, the part before or the part
after (431 or 400, MB-PART-11); one part more than max_parts with the first part, or the first
over the limit, lacking Http-Method (413 or 400, MB-PART-2); and content one octet over
max_batch_bytes ending without the close delimiter (413 or 400, MB-WIRE-13; standard tier, as
it sends max_batch_bytes). The malformed fault is first sent alone, in the second part of a
batch, to learn how the server describes it: the requirement it names and where it places it
relative to where spec 5.3 does; in a pair it must be described alike, and with no `limit`
member. The limit fault's document names one of the limit rules, the limit itself (MB-LIMIT-4,
a SHOULD; MB-LIMIT-5, a MUST, for max_part_fields) and the place spec 5.3 gives it, or none. A
server that raises the status of the fault it found first to the limit's and keeps that
fault's document, or fills the document from one fault and the status from the other, fails
here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mixbatch_conformance.core.context import Context, problem_of
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-faults-5d1e0a7c93b2f468"
#: A media range no batch representation matches (MB-STATUS-9: 406).
NO_REPRESENTATION = "application/x-mb-suite-none"
#: A Batch-Mode no server implements (MB-PROC-12: 501).
NO_MODE = "mb-suite-no-such-mode"

#: Request = (header fields, content); a fault edits one.
Request = tuple[list[tuple[str, str]], bytes]


@dataclass(frozen=True)
class Fault:
    """One fault: its name, the edit that puts it in a request, the status the table of spec
    5.1 gives it, and the requirements a problem for it may name."""

    name: str
    edit: Callable[[Request], Request]
    status: int
    requirements: frozenset[str]
    #: In the content: the problem places it (part_index, byte_offset) as alone; otherwise
    #: spec 5.3 says "absent or null where the fault is not in the content".
    in_content: bool = False


def _header(name: str, value: str) -> Callable[[Request], Request]:
    def edit(req: Request) -> Request:
        head, body = req
        return [*[(n, v) for n, v in head if n.lower() != name.lower()], (name, value)], body

    return edit


def _second_part_without_method(req: Request) -> Request:
    head, body = req
    close = f"--{BOUNDARY}--".encode()
    extra = f"--{BOUNDARY}\r\nContent-Id: <{{ok}}>\r\n\r\n\r\n".encode()
    return head, body.replace(close, extra + close)


def _oversized_header(octets: int) -> Callable[[Request], Request]:
    """Part 0's header section made `octets` octets long by one filler field line."""

    def edit(req: Request) -> Request:
        head, body = req
        start = body.index(b"Http-Method:")
        end = body.index(b"\r\n\r\n", start) + 2
        room = octets - (end - start) - len(b"X-Fill: \r\n")
        return head, body[:end] + b"X-Fill: " + b"f" * max(room, 1) + b"\r\n" + body[end:]

    return edit


FAULTS = {
    f.name: f
    for f in (
        # MB-STATUS-9: "answer 406 (Not Acceptable) to a batch request whose Accept field
        # admits none of the batch representations".
        Fault("accept", _header("Accept", NO_REPRESENTATION), 406, frozenset({"MB-STATUS-9"})),
        # MB-PROC-12: "A Batch-Mode value the server does not implement is answered 501".
        Fault(
            "mode",
            _header("Batch-Mode", NO_MODE),
            501,
            frozenset({"MB-PROC-12", "MB-PROC-7", "MB-PROC-17"}),
        ),
        # MB-WIRE-2: a media type other than multipart/mixed is 415.
        Fault("media", _header("Content-Type", "text/plain"), 415, frozenset({"MB-WIRE-2"})),
        # MB-STATUS-2: a part without Http-Method is a malformed envelope, 400.
        Fault(
            "envelope",
            _second_part_without_method,
            400,
            frozenset({"MB-STATUS-2", "MB-PART-2"}),
            in_content=True,
        ),
    )
}
#: The combinations sent: every pair a server might check in either order, and one triple.
PAIRS = (
    ("mode", "accept"),
    ("accept", "mode"),
    ("accept", "envelope"),
    ("mode", "envelope"),
    ("media", "mode"),
    ("media", "accept"),
    ("mode", "accept", "envelope"),
)
#: With a published max_part_header_bytes: the same faults beside a part header section one
#: octet over it (431, MB-STATUS-3), a fault in the content beside faults outside it.
HEADER_PAIRS = (("mode", "header"), ("header", "accept"), ("media", "header"))
#: The largest max_part_header_bytes a header fault is sent for.
MAX_HEADER_SENT = 1_000_000
LOCATION = ("part_index", "byte_offset")


def _faults(ctx: Context) -> tuple[dict[str, Fault], tuple[tuple[str, ...], ...]]:
    """The faults and combinations this target can be sent: the header fault needs a
    published max_part_header_bytes."""
    limit = ctx.limit("max_part_header_bytes")
    if limit is None or limit > MAX_HEADER_SENT:
        return FAULTS, PAIRS
    header = Fault(
        "header",
        _oversized_header(limit + 1),
        431,
        # MB-STATUS-3: "431 (Request Header Fields Too Large) when a part header section
        # exceeds max_part_header_bytes"; MB-LIMIT-1 publishes and enforces that limit.
        frozenset({"MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-4"}),
        in_content=True,
    )
    return {**FAULTS, "header": header}, PAIRS + HEADER_PAIRS


def _base(ctx: Context, judge: Judge) -> Request:
    ok = ctx.path(ctx.resource(judge, "ok"))
    body = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--"
    return [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")], body.encode()


def _send(
    ctx: Context, judge: Judge, base: Request, faults: dict[str, Fault], names: tuple[str, ...]
) -> Response:
    req = base
    for name in names:
        req = faults[name].edit(req)
    head, body = req
    ok = ctx.path(ctx.resource(judge, "ok"))
    content = body.replace(b"{ok}", ok.encode("latin-1"))
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))


def _description(doc: dict[str, Any] | None) -> dict[str, Any]:
    doc = doc or {}
    return {"requirement": doc.get("requirement"), **{m: doc.get(m) for m in LOCATION}}


def _answered_fault[F](
    judge: Judge, label: str, resp: Response, by_status: dict[int, F]
) -> tuple[F, dict[str, Any]] | None:
    """The fault whose status answers a request with several faults, and the problem document,
    whose `status` agrees; None (with the failure recorded) where neither can be had."""
    # MB-STATUS-13: "answer with a status that one of those faults calls for".
    if not judge.expect(f"{label}: status", resp.status, set(by_status), "MB-STATUS-13"):
        return None
    doc = problem_of(resp)
    # MB-STATUS-4: "each 4xx or 5xx response ... an application/problem+json body".
    if not judge.expect_true(
        f"{label}: problem document",
        doc is not None,
        repr(resp.get("Content-Type")),
        "application/problem+json",
        "MB-STATUS-4",
    ):
        return None
    assert doc is not None
    # MB-STATUS-13: the problem document agrees with the status.
    judge.expect(f"{label}: problem status", doc.get("status"), {resp.status}, "MB-STATUS-13")
    return by_status[resp.status], doc


@checker(
    "fault-pairs-problem-agrees",
    ("MB-STATUS-13", "MB-STATUS-4"),
    "A batch request with two or three faults (an unacceptable Accept, an unknown Batch-Mode, another media type, a part without Http-Method, a part header section over max_part_header_bytes) is answered with a status one of them calls for and a problem document that describes that same fault as it is described alone.",
    state=State.READ_ONLY,
)
def fault_pairs_problem_agrees(ctx: Context, judge: Judge) -> None:
    base = _base(ctx, judge)
    faults, combinations = _faults(ctx)
    alone: dict[str, dict[str, Any]] = {}
    for name, fault in faults.items():
        resp = _send(ctx, judge, base, faults, (name,))
        # Each fault alone is answered with the status the table of spec 5.1 gives it; how
        # this server describes it is what a pair's answer is held to.
        judge.require(
            f"{name} alone: status", resp.status, {fault.status}, next(iter(fault.requirements))
        )
        alone[name] = _description(problem_of(resp))
    for names in combinations:
        label = " + ".join(names)
        resp = _send(ctx, judge, base, faults, names)
        answered = _answered_fault(judge, label, resp, {faults[n].status: faults[n] for n in names})
        if answered is None:
            continue
        fault, doc = answered
        judge.note(f"{label}: {resp.status} answers the {fault.name} fault")
        same = alone[fault.name]
        # MB-STATUS-13: "make the problem document's `requirement`, `part_index` and
        # `byte_offset` describe that same fault": as alone, or another requirement the
        # table gives this status.
        judge.expect(
            f"{label}: problem requirement",
            doc.get("requirement"),
            {same["requirement"], *fault.requirements} - {None},
            "MB-STATUS-13",
        )
        for member in LOCATION:
            # Spec 5.3: "absent or null where the fault is not in the content"; a fault in the
            # content is where it is alone.
            want = same[member] if fault.in_content else None
            judge.expect(f"{label}: problem {member}", doc.get(member), {want}, "MB-STATUS-13")


# -- a published limit exceeded beside a malformed envelope --------------------------------------
#: The requirements a refusal for an exceeded limit may name: the server's rule (MB-STATUS-3,
#: MB-LIMIT-1, MB-LIMIT-5 for field lines), the client's (MB-LIMIT-3) and the naming rule.
LIMIT_REQUIREMENTS = frozenset({"MB-STATUS-3", "MB-LIMIT-1", "MB-LIMIT-3", "MB-LIMIT-4"})
#: The most parts a max_parts pair sends (the reference default plus one).
MAX_PARTS_PAIR = 10_001
#: The most field lines a max_part_fields pair sends.
MAX_FIELDS_PAIR = 10_000
#: The most octets the max_batch_bytes pair sends (the reference default plus one).
MAX_BATCH_PAIR = 64 * 1024 * 1024 + 1
#: A header line that is no field-line (RFC 9112 §5: no colon), which MB-PART-11 rejects.
BAD_LINE = b"Malformed line without a colon\r\n"
#: A part's Content-Length far over any max_part_bytes, and over 32 bits.
HUGE_LENGTH = 99_999_999_999


@dataclass(frozen=True)
class Malformed:
    """A fault that calls for 400, as the server describes it when it is a request's only
    fault: the requirement its problem names, and where it places it relative to where spec
    5.3 does (the part, and the octet the fault's anchor stands at)."""

    requirement: str | None
    part_shift: int | None
    offset_shift: int | None


@dataclass(frozen=True)
class Described:
    """What a problem document for one fault of a pair says: the status, the requirements it
    may name, the limit (None: no `limit` member), and `part_index` and `byte_offset` (None:
    absent or null, as spec 5.3 has them for a fault outside the content). `limit_rule` is the
    requirement that asks for the `limit` member."""

    status: int
    requirements: frozenset[str]
    limit: str | None
    part_index: int | None
    byte_offset: int | None
    limit_rule: str = "MB-LIMIT-4"


@dataclass(frozen=True)
class Pair:
    label: str
    content: bytes
    faults: tuple[Described, ...]


def _dash() -> bytes:
    return f"--{BOUNDARY}".encode()


def _content(parts: list[bytes], close: bool = True, preamble: bytes = b"") -> bytes:
    """A multipart body of `parts` (each a header section with its CRLFs, the empty line and
    the body), with the close delimiter when `close`."""
    dash = _dash()
    lead = preamble + b"\r\n" if preamble else b""
    body = lead + dash + b"\r\n" + (b"\r\n" + dash + b"\r\n").join(parts)
    return body + (b"\r\n" + dash + b"--" if close else b"")


def _section_starts(parts: list[bytes]) -> list[int]:
    """The offset of each part's header section in `_content(parts)`."""
    starts = [len(_dash()) + 2]
    for part in parts[:-1]:
        starts.append(starts[-1] + len(part) + 2 + len(_dash()) + 2)
    return starts


def _get_part(target: str, extra: bytes = b"") -> bytes:
    return f"Http-Method: GET\r\nContent-Id: <{target}>\r\n".encode("latin-1") + extra + b"\r\n"


def _without_method(target: str) -> bytes:
    """A part without Http-Method (MB-PART-2); spec 5.3 places "a missing field" at "the
    offset of the section's first octet"."""
    return f"Content-Id: <{target}>\r\n\r\n".encode("latin-1")


def _declaring(target: str, length: int) -> bytes:
    """A PUT part whose Content-Length declares `length` octets over the one-octet body `x`."""
    head = f"Http-Method: PUT\r\nContent-Id: <{target}>\r\nContent-Type: text/plain\r\n"
    return (head + f"Content-Length: {length}\r\n\r\nx").encode("latin-1")


def _length_line(target: str) -> int:
    """Where the Content-Length line of `_declaring` stands in its part."""
    return _declaring(target, 1).index(b"Content-Length:")


def _bad_line_at(target: str) -> int:
    """Where BAD_LINE stands in a part `_get_part(target, BAD_LINE ...)`."""
    return len(_get_part(target)) - 2


def _filled(target: str, octets: int, bad: bool) -> bytes:
    """A GET part whose field lines (BAD_LINE aside, written first when `bad`) take `octets`
    octets, one X-Fill line making up the rest."""
    head = _get_part(target)[:-2]
    room = octets - len(head) - len(b"X-Fill: \r\n")
    fill = b"X-Fill: " + b"f" * max(room, 1) + b"\r\n"
    return head + (BAD_LINE if bad else b"") + fill + b"\r\n"


def _counted(target: str, lines: int, bad: bool) -> bytes:
    """A GET part of `lines` field lines, and BAD_LINE first among them when `bad`."""
    head = _get_part(target)[:-2]
    fill = b"".join(f"X-F{i}: a\r\n".encode() for i in range(lines - 2))
    return head + (BAD_LINE if bad else b"") + fill + b"\r\n"


def _learn(
    ctx: Context,
    judge: Judge,
    label: str,
    parts: list[bytes],
    at: tuple[int, int],
    close: bool = True,
) -> Malformed:
    """How the server describes a malformed fault alone: a batch of `parts` whose one fault
    is in part `at[0]`, anchored at octet `at[1]` (what spec 5.3 places it at)."""
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    content = _content(parts, close)
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, content))
    # The fault alone calls for 400 (MB-STATUS-2: "A server MUST answer a batch request whose
    # envelope is malformed ... with 400").
    judge.require(f"{label} alone: status", resp.status, {400}, "MB-STATUS-2")
    doc = problem_of(resp) or {}
    index, offset = doc.get("part_index"), doc.get("byte_offset")
    return Malformed(
        doc.get("requirement"),
        int(index) - at[0] if is_json_integer(index) else None,
        int(offset) - at[1] if is_json_integer(offset) else None,
    )


def _malformed(kind: Malformed, requirements: frozenset[str], index: int, anchor: int) -> Described:
    """The description of a malformed fault in part `index` anchored at octet `anchor`, as the
    server describes the same fault alone."""
    return Described(
        400,
        requirements | ({kind.requirement} if kind.requirement else set()),
        None,
        None if kind.part_shift is None else index + kind.part_shift,
        None if kind.offset_shift is None else anchor + kind.offset_shift,
    )


def _limit_fault(status: int, name: str, index: int | None, offset: int | None) -> Described:
    """A limit fault as spec 5.3 places it: "a limit on the section or the part: the offset of
    the section's first octet"; "too many parts: the delimiter line that opens the first part
    over the limit"; absent for "a limit on the whole batch"."""
    rule = "MB-LIMIT-5" if name == "max_part_fields" else "MB-LIMIT-4"
    extra = {"MB-LIMIT-5"} if name == "max_part_fields" else set()
    return Described(status, LIMIT_REQUIREMENTS | extra, name, index, offset, rule)


#: The requirements a problem for each malformed fault may name besides the one the server
#: names alone: its own rule and MB-STATUS-2, the rule for every malformed envelope.
BAD_LINE_RULES = frozenset({"MB-PART-11", "MB-STATUS-2"})
NO_METHOD_RULES = frozenset({"MB-PART-2", "MB-STATUS-2"})
MISMATCH_RULES = frozenset({"MB-WIRE-17", "MB-STATUS-2"})
UNCLOSED_RULES = frozenset({"MB-WIRE-13", "MB-STATUS-2"})


def _declared_pairs(ctx: Context, judge: Judge, ok: str) -> list[Pair]:
    """A part declaring more octets than max_part_bytes over a one-octet body."""
    part_bytes = ctx.limit("max_part_bytes")
    if part_bytes is None:
        return []
    target = ctx.path(ctx.target.resource("echo") or ok)
    at = _section_starts([_get_part(ok), b""])[1] + _length_line(target)
    alone = [_get_part(ok), _declaring(target, 2)]
    mismatch = _learn(ctx, judge, "a Content-Length over its body", alone, (1, at))
    pairs = []
    for declared in sorted({part_bytes + 1, max(HUGE_LENGTH, part_bytes + 1)}):
        parts = [_declaring(target, declared)]
        start = _section_starts(parts)[0]
        faults = (
            # Spec 9.1: "a part that declares more octets than max_part_bytes may be answered
            # 413 before its body is read, naming max_part_bytes ... Such a part carries two
            # faults, the declared size and the length that differs from its body
            # (MB-WIRE-17), and MB-STATUS-13 lets the server answer either".
            _limit_fault(413, "max_part_bytes", 0, start),
            _malformed(mismatch, MISMATCH_RULES, 0, start + _length_line(target)),
        )
        label = f"Content-Length {declared} over max_part_bytes {part_bytes}, a body of 1 octet"
        pairs.append(Pair(label, _content(parts), faults))
    return pairs


def _header_pairs(ctx: Context, judge: Judge, ok: str) -> list[Pair]:
    """A header section over max_part_header_bytes, or over max_part_fields, beside a line
    without a colon: in the same part, or in the part before or after it."""
    header_bytes = ctx.limit("max_part_header_bytes")
    fields = ctx.limit("max_part_fields")
    over_bytes = header_bytes is not None and header_bytes <= MAX_HEADER_SENT
    over_fields = fields is not None and fields <= MAX_FIELDS_PAIR
    if not (over_bytes or over_fields):
        return []
    alone = [_get_part(ok), _get_part(ok, BAD_LINE)]
    at = _section_starts(alone)[1] + _bad_line_at(ok)
    bad = _learn(ctx, judge, "a line without a colon", alone, (1, at))
    # (label, parts, the limit's part, the line's part, the status and limit).
    cases: list[tuple[str, list[bytes], int, int, int, str]] = []
    if over_bytes:
        assert header_bytes is not None
        over = _filled(ok, header_bytes + 1, bad=False)
        both = _filled(ok, header_bytes + 1, bad=True)
        name = "max_part_header_bytes"
        cases += [
            (f"a section over {name} holding a line without a colon", [both], 0, 0, 431, name),
            (
                f"a line without a colon, then a section over {name}",
                [*alone[1:], over],
                1,
                0,
                431,
                name,
            ),
            (
                f"a section over {name}, then a line without a colon",
                [over, *alone[1:]],
                0,
                1,
                431,
                name,
            ),
        ]
    if over_fields:
        assert fields is not None
        part = _counted(ok, fields + 1, bad=True)
        # Over max_part_fields alone: a section also over max_part_header_bytes is a third
        # fault.
        if header_bytes is None or len(part) - 2 <= header_bytes:
            label = f"{fields + 1} field lines over max_part_fields and a line without a colon"
            cases.append((label, [part], 0, 0, 431, "max_part_fields"))
    pairs = []
    for label, parts, limit_in, bad_in, status, name in cases:
        starts = _section_starts(parts)
        faults = (
            # MB-STATUS-3: "431 (Request Header Fields Too Large) when a part header section
            # exceeds max_part_header_bytes or max_part_fields".
            _limit_fault(status, name, limit_in, starts[limit_in]),
            # MB-PART-11: "A receiver MUST reject a part header line that is not a valid
            # field-line"; spec 5.3: "a fault in one header field line (syntax, ...): the offset
            # of the line's first octet".
            _malformed(bad, BAD_LINE_RULES, bad_in, starts[bad_in] + _bad_line_at(ok)),
        )
        pairs.append(Pair(label, _content(parts), faults))
    return pairs


def _count_pairs(ctx: Context, judge: Judge, ok: str) -> list[Pair]:
    """One part more than max_parts, the first part or the first over the limit lacking
    Http-Method."""
    max_parts = ctx.limit("max_parts")
    if max_parts is None or max_parts + 1 > MAX_PARTS_PAIR:
        return []
    alone = [_get_part(ok), _without_method(ok)]
    missing = _learn(
        ctx, judge, "a part without Http-Method", alone, (1, _section_starts(alone)[1])
    )
    batch_limit = ctx.limit("max_batch_bytes")
    pairs = []
    for bad_in, where in ((0, "the first part"), (max_parts, "the first part over the limit")):
        parts = [_get_part(ok)] * (max_parts + 1)
        parts[bad_in] = _without_method(ok)
        content = _content(parts)
        if batch_limit is not None and len(content) > batch_limit:
            continue
        starts = _section_starts(parts)
        faults = (
            # MB-STATUS-3: a batch over a limit is answered 413; spec 5.3: "too many parts: the
            # delimiter line that opens the first part over the limit".
            _limit_fault(413, "max_parts", max_parts, starts[max_parts] - len(_dash()) - 2),
            # MB-PART-2: "A server MUST answer 400 to a batch request in which any request part
            # has no `Http-Method` field"; spec 5.3 places "a missing field" at "the offset of
            # the section's first octet".
            _malformed(missing, NO_METHOD_RULES, bad_in, starts[bad_in]),
        )
        label = f"{max_parts + 1} parts over max_parts, {where} without Http-Method"
        pairs.append(Pair(label, content, faults))
    return pairs


def _judge_pair(ctx: Context, judge: Judge, pair: Pair) -> None:
    """Send `pair` and expect the status of one of its faults with a problem document that
    describes that fault."""
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, pair.content))
    label = pair.label
    answered = _answered_fault(judge, label, resp, {f.status: f for f in pair.faults})
    if answered is None:
        return
    fault, doc = answered
    judge.note(f"{label}: {resp.status}")
    # MB-STATUS-13: "make the problem document's `requirement`, `part_index` and `byte_offset`
    # describe that same fault", not the other one.
    judge.expect(
        f"{label}: problem requirement", doc.get("requirement"), fault.requirements, "MB-STATUS-13"
    )
    for member, want in (("part_index", fault.part_index), ("byte_offset", fault.byte_offset)):
        # A limit fault may leave its place out ("when the server knows them", MB-STATUS-4);
        # where it gives one, it is the limit's.
        allowed = {want, None} if fault.limit is not None else {want}
        judge.expect(f"{label}: problem {member}", doc.get(member), allowed, "MB-STATUS-13")
    if fault.limit is None:
        # Spec 5.3: the `limit` member "stands beside a 413, 431 or 503"; beside a 400 it would
        # describe the other fault.
        judge.expect(f"{label}: problem limit", doc.get("limit"), {None}, "MB-STATUS-13")
        return
    # MB-STATUS-13: a limit member names this fault's limit, not another's; MB-LIMIT-4 (SHOULD,
    # MB-LIMIT-5 a MUST for max_part_fields): "name the exceeded limit in a 413 or 431 problem
    # document, in a `limit` member".
    judge.expect(f"{label}: problem limit", doc.get("limit"), {fault.limit, None}, "MB-STATUS-13")
    judge.expect(
        f"{label}: problem names the limit", doc.get("limit"), {fault.limit}, fault.limit_rule
    )


@checker(
    "fault-pairs-limit-beside-malformed",
    ("MB-STATUS-13", "MB-LIMIT-4", "MB-LIMIT-5"),
    "A batch request with a published part limit exceeded beside a malformed envelope (a part declaring more than max_part_bytes over a shorter body; a header section over max_part_header_bytes or max_part_fields beside a line without a colon, in the same part or another; more parts than max_parts with the first, or the first over the limit, lacking Http-Method) is answered with the status one of the two calls for, and a problem document whose requirement, limit, part_index and byte_offset describe that same fault.",
    state=State.READ_ONLY,
)
def fault_pairs_limit_beside_malformed(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    pairs = [
        *_declared_pairs(ctx, judge, ok),
        *_header_pairs(ctx, judge, ok),
        *_count_pairs(ctx, judge, ok),
    ]
    if not pairs:
        judge.not_applicable("the target publishes no part limit small enough to exceed")
    for pair in pairs:
        _judge_pair(ctx, judge, pair)


@checker(
    "fault-pairs-batch-bytes-beside-unclosed",
    ("MB-STATUS-13", "MB-LIMIT-4"),
    "A batch request whose content is one octet over max_batch_bytes and ends without the close delimiter is answered 413 with a problem naming max_batch_bytes and placing nothing in the content, or 400 with a problem describing the missing close delimiter.",
    tier="standard",
    state=State.READ_ONLY,
)
def fault_pairs_batch_bytes_beside_unclosed(ctx: Context, judge: Judge) -> None:
    limit = ctx.limit("max_batch_bytes")
    if limit is None:
        judge.not_applicable("the target publishes no max_batch_bytes")
    if limit + 1 > MAX_BATCH_PAIR:
        judge.not_applicable(f"max_batch_bytes {limit} is more than {MAX_BATCH_PAIR - 1} octets")
    ok = ctx.path(ctx.resource(judge, "ok"))
    small = _content([_get_part(ok), _get_part(ok)], close=False)
    unclosed = _learn(
        ctx,
        judge,
        "no close delimiter",
        [_get_part(ok), _get_part(ok)],
        (1, len(small)),
        close=False,
    )
    bare = _content([_get_part(ok)], close=False)
    # The octets over one part go to the preamble, which max_batch_bytes counts (spec 9.1:
    # "preamble, delimiter lines, parts and epilogue") and a receiver ignores (MB-WIRE-9).
    preamble = b"p" * (limit + 1 - len(bare) - 2)
    content = _content([_get_part(ok)], close=False, preamble=preamble)
    pair = Pair(
        f"{len(content)} octets over max_batch_bytes {limit}, no close delimiter",
        content,
        (
            # Spec 5.3: a place is "absent or null where the fault is not in the content (...,
            # a limit on the whole batch, ...)".
            _limit_fault(413, "max_batch_bytes", None, None),
            # MB-WIRE-13: "answer 400 to a batch request whose content ends without the close
            # delimiter"; spec 5.3: "a missing close delimiter: the length of the content, in
            # the last part".
            _malformed(unclosed, UNCLOSED_RULES, 0, len(content)),
        ),
    )
    _judge_pair(ctx, judge, pair)
