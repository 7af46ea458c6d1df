"""What an atomic batch that writes in the sandbox, holds its writes, then fails and rolls back
is made of, for checks that watch the rollback from outside the batch."""

from __future__ import annotations

from mixbatch_conformance.checks._shared.sandbox_marks import created_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import Response

__all__ = ["held_rollback", "member_pair"]


#: Seconds an exchange needs beyond the holds it waits out: sending, running the other parts,
#: answering.
EXCHANGE_SLACK_S = 2


def held_rollback(
    ctx: Context, judge: Judge, delay_ms: int, *, holds: int = 1, waiting: str = "the delayed batch"
) -> tuple[str, SubRequest, SubRequest]:
    """The sandbox collection's path, a GET of the delay resource waiting `delay_ms`
    milliseconds (the hold), and a GET of the not_found resource (the failing part).

    The check is not applicable when `waiting` (the request that waits out `holds` holds) does
    not fit the suite's time per exchange."""
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    wait = SubRequest("GET", ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(delay_ms))))
    fail = SubRequest("GET", ctx.path(ctx.resource(judge, "not_found")))
    if ctx.target.timeout < delay_ms / 1000 * holds + EXCHANGE_SLACK_S:
        judge.not_applicable(f"{waiting} does not fit the suite's time per exchange")
    return coll, wait, fail


def member_pair(ctx: Context, judge: Judge, coll: str, marker: str) -> tuple[str, str, Response]:
    """Two new members of the sandbox collection `coll` marked with `marker`, created alone
    (one to rewrite, one to delete), and what a GET alone of the first answers: 200
    (MB-TEST-3)."""
    rewritten, deleted = (
        created_member(ctx, judge, coll, marker),
        created_member(ctx, judge, coll, marker),
    )
    before = ctx.alone(judge, SubRequest("GET", rewritten))
    judge.require(f"GET {rewritten}", before.status, {200}, "MB-TEST-3")
    return rewritten, deleted, before
