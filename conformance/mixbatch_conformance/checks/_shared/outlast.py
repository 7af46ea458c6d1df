"""A batch that outlasts the target's declared whole-batch time limit (spec 5.4).

Theory of operation: a black-box suite cannot make a server fail on purpose, but it can
outlast the limit the target declares (`batch_timeout_ms`): a quick part, a part on the delay
resource that waits past the limit, and a quick part after it. Spec 5.4 then allows the abort
after the slow part (`part_index` 1) or after it finished (`part_index` 2). N/A without a
declared limit or a delay resource, or when the wait would not fit the suite's time per
exchange.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge

__all__ = ["ABORT_INDEXES", "FIRST_ABORT_INDEXES", "outlasting_batch"]

#: How far past the declared limit the slow part is asked to wait, at least.
OVERSHOOT_MS = 1000
#: Seconds the suite allows beyond the limit before it gives up on the exchange.
SLACK_S = 5.0
#: The index of the part that outlasts the limit (k in spec 5.4).
SLOW = 1
#: MB-STATUS-6: "parts 0 to k-1, then the abort part with `part_index` k" or "parts 0 to k,
#: then the abort part with `part_index` k+1".
ABORT_INDEXES = frozenset({SLOW, SLOW + 1})
#: The same with the slow part first (k = 0): the abort names part 0, or part 1 when the server
#: finished the slow part.
FIRST_ABORT_INDEXES = frozenset({0, 1})


def outlasting_batch(ctx: Context, judge: Judge, *, slow_first: bool = False) -> list[SubRequest]:
    """The quick part, the slow part and a quick part; with `slow_first`, the slow part and
    then a quick one, so that the server stops before it has answered any part."""
    limit_ms = ctx.target.batch_timeout_ms
    if limit_ms is None:
        judge.not_applicable("the target declares no whole-batch time limit (batch_timeout_ms)")
    template = ctx.resource(judge, "delay")
    ok = ctx.path(ctx.resource(judge, "ok"))
    # MB-TEST-7: the delay resource answers "no sooner than *ms* milliseconds after it
    # received the request", and the budget counts "from the moment its server begins to
    # receive the batch request", so the slow part outlasts it by the overshoot at least.
    delay_ms = limit_ms + max(OVERSHOOT_MS, limit_ms // 2)
    if limit_ms / 1000 + SLACK_S > ctx.target.timeout:
        judge.not_applicable(
            f"a batch outlasting {limit_ms} ms does not fit the suite's "
            f"{ctx.target.timeout:g} s per exchange"
        )
    slow = SubRequest("GET", ctx.path(template.replace("{ms}", str(delay_ms))))
    if slow_first:
        return [slow, SubRequest("GET", ok)]
    return [SubRequest("GET", ok), slow, SubRequest("GET", ok)]
