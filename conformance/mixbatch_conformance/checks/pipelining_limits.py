"""A request pipelined behind a limit refusal is answered (spec 9.1, 11).

Theory of operation: a server refuses a batch over a limit before any part runs (MB-STATUS-3),
and may do so before it has read the content: by a part's declared `Content-Length`, by the
section it is reading, by the count of parts so far. The octets it did not read are still on
the connection; a server that answers and then reads on, without first reading past them,
takes the rest of the refused batch for the next request, and the request pipelined behind it
gets a 400 or nothing. `pipelining-behind-limit-refusals` writes, for each part limit the
target publishes and a bounded batch can exceed, the batch one unit over it (a header section
over `max_part_header_bytes`, the same content chunked, a part over `max_part_fields`, a batch
over `max_parts`, a part body over `max_part_bytes` with its `Content-Length` stated), sends
it alone for its status, then pipelines it with a plain GET of `ok` behind it. The refusal
must get the status it gets alone and the GET its 200 (MB-PIPE-1). Spec 11 makes one
exception: "an answer a server gives before it has read the request's content whole, a 413 or
431 ... RFC 9112 §9.6 lets it close the connection after that answer, marked `Connection:
close`", so a 413 or 431 that says so may leave the GET unanswered; any other status, or a
close not marked, may not (the refusals of other kinds are `pipelining-behind-every-answer`'s,
with no exception). An intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    MAX_PARTS_SENT,
    envelope,
    header_section,
    part,
)
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The largest part body the check sends over max_part_bytes (the reference's 16 MiB, plus one).
MAX_PART_SENT = 16 * 1024 * 1024 + 1
#: The largest header limit the check writes one over.
MAX_HEADER_SENT = 1_000_000
#: The refusals spec 11 lets a server close the connection after, marked Connection: close.
CLOSING_REFUSALS = frozenset({413, 431})


def _fits(ctx: Context, body: bytes) -> bool:
    batch = ctx.limit("max_batch_bytes")
    return batch is None or len(body) <= batch


def _leaders(ctx: Context, judge: Judge) -> list[tuple[str, bytes]]:
    """(what, request) for each limit refusal the target's published limits allow."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    fields_limit = ctx.limit("max_part_fields")
    header_limit = ctx.limit("max_part_header_bytes")

    def post(body: bytes, chunked: bool = False) -> bytes:
        if not chunked:
            return ctx.raw_request("POST", ctx.batch_path, mixed, body)
        framed, _ = chunked_content(body)
        head = [*mixed, ("Transfer-Encoding", "chunked")]
        return ctx.raw_request("POST", ctx.batch_path, head, framed)

    out: list[tuple[str, bytes]] = []
    if header_limit is not None and header_limit <= MAX_HEADER_SENT:
        # MB-STATUS-3: "431 (Request Header Fields Too Large) when a part header section
        # exceeds `max_part_header_bytes`"; a second, small part follows it unread.
        small = part(header_section(ok, fields=2))
        body = envelope([part(header_section(ok, octets=header_limit + 1)), small])
        if _fits(ctx, body) and (fields_limit is None or fields_limit >= 3):
            out.append(("a header section over max_part_header_bytes", post(body)))
            out.append(("a chunked header section over max_part_header_bytes", post(body, True)))
    if fields_limit is not None and fields_limit <= 10_000:
        section = header_section(ok, fields=fields_limit + 1)
        body = envelope([part(section), part(header_section(ok, fields=2))])
        if (header_limit is None or len(section) <= header_limit) and _fits(ctx, body):
            # MB-LIMIT-5: "answer a batch request with a part over it with 431".
            out.append(("a part over max_part_fields", post(body)))
    parts = ctx.limit("max_parts")
    if parts is not None and parts + 1 <= MAX_PARTS_SENT:
        body = envelope([part(header_section(ok, fields=2))] * (parts + 1))
        if _fits(ctx, body):
            # MB-STATUS-3: 413 for "a batch request that exceeds one of its limits".
            out.append(("a batch over max_parts", post(body)))
    part_limit = ctx.limit("max_part_bytes")
    if part_limit is not None and part_limit + 1 <= MAX_PART_SENT:
        echo = ctx.path(ctx.resource(judge, "echo"))
        big = SubRequest(
            "PUT", echo, (("Content-Type", "application/octet-stream"),), b"b" * (part_limit + 1)
        )
        body = compose_batch([big, SubRequest("GET", ok)], BOUNDARY)
        if _fits(ctx, body):
            # MB-STATUS-3: 413; its Content-Length states the length a server may refuse by
            # before it reads the body.
            out.append(("a part body over max_part_bytes", post(body)))
    return out


def _closes(connection: str | None) -> bool:
    return "close" in {t.strip().lower() for t in (connection or "").split(",")}


@checker(
    "pipelining-behind-limit-refusals",
    ("MB-PIPE-1", "MB-STATUS-3"),
    "A plain GET pipelined behind a batch refused for each published part limit (header octets, plain and chunked, field lines, part count, a part body with its Content-Length) is answered 200 after the refusal, unless the refusal closes the connection with Connection: close.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_limit_refusals(ctx: Context, judge: Judge) -> None:
    leaders = _leaders(ctx, judge)
    if not leaders:
        judge.not_applicable("the target publishes no part limit a bounded batch can exceed")
    follower = ctx.raw_request("GET", ctx.path(ctx.resource(judge, "ok")))
    for what, leader in leaders:
        alone = ctx.send(judge, leader)
        # MB-STATUS-3: a batch over a limit is answered 413, or 431 for a header section.
        judge.expect(f"{what} alone", alone.status, {413, 431}, "MB-STATUS-3")
        first, second = ctx.send_many(judge, [leader, follower])
        got = first.response.status if first.response else None
        # MB-PIPE-1: "answer pipelined requests on a connection, batch requests and other
        # requests alike, in the order it received them": the refusal first, as it is
        # answered alone.
        judge.expect(f"status of {what}, pipelined", got, {alone.status}, "MB-PIPE-1")
        # Spec 11: only "a 413 or 431 by a declared length or at a limit reached while
        # reading" may close the connection, "marked `Connection: close`".
        closed = (
            first.response is not None
            and first.response.status in CLOSING_REFUSALS
            and _closes(first.response.get("Connection"))
        )
        after = second.response.status if second.response else None
        if closed and after is None:
            judge.note(f"{what}: answered {got} with Connection: close, the GET unanswered")
            continue
        # MB-PIPE-1 again, and MB-TEST-1 fixes 200 for ok: the GET behind the refusal is
        # answered in its turn, not read out of the refused batch's unread octets.
        judge.expect(f"status of the GET behind {what}", after, {200}, "MB-PIPE-1")
