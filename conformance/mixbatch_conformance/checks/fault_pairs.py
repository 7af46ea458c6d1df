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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mixbatch_conformance.core.context import Context, problem_of
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
        by_status = {faults[n].status: faults[n] for n in names}
        # MB-STATUS-13: "answer with a status that one of those faults calls for".
        if not judge.expect(f"{label}: status", resp.status, set(by_status), "MB-STATUS-13"):
            continue
        fault = by_status[resp.status]
        doc = problem_of(resp)
        # MB-STATUS-4: "each 4xx or 5xx response ... an application/problem+json body".
        if not judge.expect_true(
            f"{label}: problem document",
            doc is not None,
            repr(resp.get("Content-Type")),
            "application/problem+json",
            "MB-STATUS-4",
        ):
            continue
        assert doc is not None
        judge.note(f"{label}: {resp.status} answers the {fault.name} fault")
        # MB-STATUS-13: the problem document agrees with the status.
        judge.expect(f"{label}: problem status", doc.get("status"), {resp.status}, "MB-STATUS-13")
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
