"""One part over `max_parts` is refused like any other exceeded limit (spec 9.1, 5.3).

Theory of operation: the same case as `reject-too-many-parts`, held to everything
`_shared.limit_cases.refused` asks of a limit's refusal: 413 before any part runs, a problem
document naming the limit's requirement (not a framing rule) and the limit, and placing the
fault where spec 5.3 puts too many parts: "the delimiter line that opens the first part over
the limit".
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    MAX_PARTS_SENT,
    envelope,
    header_section,
    part,
    published_limit,
    refused,
    within,
)
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []


@checker(
    "limit-parts-one-over",
    ("MB-STATUS-3", "MB-LIMIT-1", "MB-STATUS-4"),
    "A batch of one part more than the published max_parts is answered 413 with a problem document naming the limit's requirement and max_parts, at the delimiter line that opens the part over the limit.",
    state=State.READ_ONLY,
    tier="standard",
)
def limit_parts_one_over(ctx: Context, judge: Judge) -> None:
    limit = published_limit(ctx, judge, "max_parts")
    if limit > MAX_PARTS_SENT:
        judge.not_applicable(f"max_parts {limit} is more than the {MAX_PARTS_SENT} sent at most")
    ok = ctx.path(ctx.resource(judge, "ok"))
    body = envelope([part(header_section(ok, fields=2))] * (limit + 1))
    # Every other limit is kept: the batch's octets, and the part count but for one.
    within(ctx, judge, body, limit, 2)
    # Spec 5.3, too many parts: "the delimiter line that opens the first part over the limit";
    # the parts hold no dash-boundary, so it is the delimiter numbered `limit` from 0.
    dash = f"--{BOUNDARY}".encode()
    at = -1
    for _ in range(limit + 1):
        at = body.index(dash, at + 1)
    # MB-STATUS-3: "answer a batch request that exceeds one of its limits with 413".
    refused(ctx, judge, body, 413, "max_parts", at=at, index=limit)
