"""A batch that outlasts the target's declared whole-batch time limit (spec 5.4).

Theory of operation: a black-box suite cannot make a server fail on purpose, but it can
outlast the limit the target declares (`batch_timeout_ms`): a quick part, a part on the delay
resource that waits past the limit, and a quick part after it. Spec 5.4 then allows the abort
after the slow part (`part_index` 1) or after it finished (`part_index` 2), and the slow part
last (`slow_last`) shows whether an abort is written when no part is left to name.

A read of such an exchange may wait the slow part's whole delay (a server may finish the part
before it stops) and `SLACK_S` more: longer than the run's per-exchange timeout when the
declared limit is a few seconds or more. The check then raises its own exchanges' wait to that
(`wait_out`, through `Judge.wait_s`), up to `MAX_OUTLAST_WAIT_S` (or the run's timeout, if
longer): a declared limit is judged whatever its length below that bound, and N/A only beyond
it. N/A too without a declared limit or a delay resource.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge

__all__ = [
    "ABORT_INDEXES",
    "EARLY_TOLERANCE_S",
    "FIRST_ABORT_INDEXES",
    "MAX_OUTLAST_WAIT_S",
    "expect_not_before_budget",
    "outlast_fits",
    "outlasting_batch",
    "wait_out",
]

#: How far past the declared limit the slow part is asked to wait, at least.
OVERSHOOT_MS = 1000
#: Seconds the suite allows beyond the slow part's delay before it gives up on a read.
SLACK_S = 5.0
#: The longest the suite waits on one read of an exchange that outlasts a declared time limit,
#: unless the run's per-exchange timeout is longer: a limit of up to about 16 s is judged.
MAX_OUTLAST_WAIT_S = 30.0
#: Seconds an answer that ended a batch for its time may come before the declared limit, as the
#: client counts it: a timer that rounds to its tick (JavaScript's fires up to a millisecond
#: early). The client's clock starts before the request's first octet, the server's no sooner.
EARLY_TOLERANCE_S = 0.05
#: The index of the part that outlasts the limit (k in spec 5.4).
SLOW = 1
#: MB-STATUS-6: "parts 0 to k-1, then the abort part with `part_index` k" or "parts 0 to k,
#: then the abort part with `part_index` k+1".
ABORT_INDEXES = frozenset({SLOW, SLOW + 1})
#: The same with the slow part first (k = 0): the abort names part 0, or part 1 when the server
#: finished the slow part.
FIRST_ABORT_INDEXES = frozenset({0, 1})


def _bound_s(ctx: Context) -> float:
    return max(ctx.timeout, MAX_OUTLAST_WAIT_S)


def wait_out(ctx: Context, judge: Judge, wait_s: float, what: str) -> None:
    """Let each read of `judge`'s exchanges wait `wait_s` seconds, or N/A when that is beyond
    the longest wait the suite gives an exchange outlasting a declared limit."""
    bound = _bound_s(ctx)
    if wait_s > bound:
        judge.not_applicable(
            f"{what} would wait {wait_s:g} s, more than the {bound:g} s the suite waits on an "
            "exchange that outlasts a declared time limit"
        )
    judge.wait_s = max(judge.wait_s, wait_s)


def _delay_ms(limit_ms: int) -> int:
    # MB-TEST-7: the delay resource answers "no sooner than *ms* milliseconds after it
    # received the request", and the budget counts "from the moment its server begins to
    # receive the batch request", so the slow part outlasts it by the overshoot at least.
    return limit_ms + max(OVERSHOOT_MS, limit_ms // 2)


def outlast_fits(ctx: Context) -> bool:
    """Whether the target declares what `outlasting_batch` needs (a time limit, a delay
    resource) and its wait is within the suite's bound."""
    limit_ms = ctx.target.batch_timeout_ms
    return (
        limit_ms is not None
        and ctx.target.resource("delay") is not None
        and ctx.target.resource("ok") is not None
        and _delay_ms(limit_ms) / 1000 + SLACK_S <= _bound_s(ctx)
    )


def outlasting_batch(
    ctx: Context, judge: Judge, *, slow_first: bool = False, slow_last: bool = False
) -> list[SubRequest]:
    """The quick part, the slow part and a quick part; with `slow_first`, the slow part and
    then a quick one, so that the server stops before it has answered any part; with
    `slow_last`, a quick part and then the slow one, so that no part is left after the one
    the budget cuts off. Raises the check's wait to what the slow part may take."""
    limit_ms = ctx.target.batch_timeout_ms
    if limit_ms is None:
        judge.not_applicable("the target declares no whole-batch time limit (batch_timeout_ms)")
    template = ctx.resource(judge, "delay")
    ok = ctx.path(ctx.resource(judge, "ok"))
    delay_ms = _delay_ms(limit_ms)
    # A server may finish the slow part before it stops (spec 5.4: "parts 0 to k"), so a read
    # may wait its whole delay.
    wait_out(ctx, judge, delay_ms / 1000 + SLACK_S, f"a batch outlasting {limit_ms} ms")
    slow = SubRequest("GET", ctx.path(template.replace("{ms}", str(delay_ms))))
    if slow_first:
        return [slow, SubRequest("GET", ok)]
    if slow_last:
        return [SubRequest("GET", ok), slow]
    return [SubRequest("GET", ok), slow, SubRequest("GET", ok)]


def expect_not_before_budget(
    ctx: Context, judge: Judge, label: str, stopped: bool, elapsed: float
) -> None:
    """A batch the server ended for its time (`stopped`: an abort part, or an answer cut short)
    ended no sooner than its declared limit, counted from before the request was sent
    (`elapsed` seconds to the answer's end)."""
    limit_ms = ctx.target.batch_timeout_ms
    if not stopped or limit_ms is None:
        return
    # MB-TEST-7: a server whose description declares `batch_timeout_ms` "MUST let a batch run
    # that many milliseconds, counted from the moment it began to receive the batch request,
    # before it stops the batch for its time".
    judge.expect_true(
        f"{label}time the batch was stopped at",
        elapsed + EARLY_TOLERANCE_S >= limit_ms / 1000,
        f"stopped {elapsed:.2f} s after the request was sent",
        f"no sooner than the declared batch_timeout_ms ({limit_ms} ms)",
        "MB-TEST-7",
    )
