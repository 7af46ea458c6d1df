"""A batch that ends shortly before the declared time budget is answered, not aborted or
refused for its time (spec 14.4, MB-TEST-7).

Theory of operation: MB-TEST-7 has a server that declares `batch_timeout_ms` "let a batch run
that many milliseconds, counted from the moment it began to receive the batch request, before
it stops the batch for its time: a delayed part of a batch that ends within the declared budget
is answered as above, whatever budget the server keeps inside". A server that keeps a margin for
writing its answer, or that shares the budget among its parts, stops such a batch early; the
abort checks send parts that outlast the budget by half of it, and the other delay checks stay
far inside it, so neither meets the edge.

The check sends a batch of one part, the delay resource for the budget less `MARGIN_MS`, which
must be answered 200. The margin covers what the server spends between receiving the request
and starting the part; a server slowed for a moment may still cross the budget, so a batch
whose part was stopped is sent again, up to `ATTEMPTS` times, and only a part stopped every
time fails. MB-TEST-7 bounds how soon the delay resource answers, not how late, and lets it
refuse a count past the largest it accepts, so once a part was stopped the same delay is asked
for alone: unless it is answered 200 at least half the margin before the budget, the check is
N/A. A batch refused by the server's own policies (503, 429) is N/A too.

Then a batch of one quick part whose content arrives in `PIECES` pieces spread over
`ARRIVAL_SHARE` of the budget (`ARRIVAL_MAX_S` at most): the budget counts reception too, and
this batch ends well inside it, so it must be answered 200 with the part's 200, not refused
(408, say) by a guard on slow senders tighter than the budget the target declares. That batch
is written direct, on an HTTP/1.1 connection of its own: through an intermediary or over HTTP/2
it is not sent. The check is N/A without a declared budget, with a `delay_max_ms` below the
delay, or with a budget too short to leave a delay past the margin.
"""

from __future__ import annotations

import time

from mixbatch_conformance.checks._shared.outlast import wait_out
from mixbatch_conformance.checks._shared.trickle import split_evenly, trickled
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge, StopCheck
from mixbatch_conformance.core.outcomes import (
    POLICY_REFUSALS,
    expect_processed,
    part_status,
    unjudged_if_policy_refusal,
)
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Milliseconds before the declared budget at which the delayed part ends: room for the server
#: to read the batch and start the part, far less than a margin a server keeps for itself.
MARGIN_MS = 300
#: The shortest delay worth sending: a budget that leaves less is not near its edge.
MIN_DELAY_MS = 500
#: Batches sent before a part stopped every time is judged stopped.
ATTEMPTS = 3
#: Seconds the suite waits for an answer past the budget.
SLACK_S = 3.0
#: The share of the budget over which the slow batch's content arrives, at most
#: `ARRIVAL_MAX_S` (inside the grace period HTTP stacks give a slow body before any rate
#: guard, five seconds in ASP.NET Core's Kestrel), and its pieces.
ARRIVAL_SHARE = 0.6
ARRIVAL_MAX_S = 2.5
PIECES = 4
BOUNDARY = "mb-budget-edge-2e7b"


@checker(
    "delay-ending-inside-budget-answered",
    ("MB-TEST-7",),
    "A batch whose one part is the delay resource for the declared batch_timeout_ms less 300 ms, and a batch of one quick part whose content arrives over 60 % of the budget, are each answered 200 with the part's 200, not stopped or refused for their time: the whole declared budget is the batch's.",
    tier="standard",
    state=State.READ_ONLY,
)
def delay_ending_inside_budget_answered(ctx: Context, judge: Judge) -> None:
    limit_ms = ctx.target.batch_timeout_ms
    if limit_ms is None:
        judge.not_applicable("the target declares no whole-batch time limit (batch_timeout_ms)")
    delay_ms = limit_ms - MARGIN_MS
    if delay_ms < MIN_DELAY_MS:
        judge.not_applicable(f"batch_timeout_ms {limit_ms} leaves no delay near its edge")
    largest = ctx.target.delay_max_ms
    if largest is not None and delay_ms > largest:
        judge.not_applicable(f"the delay of {delay_ms} ms is past the declared delay_max_ms")
    wait_out(ctx, judge, limit_ms / 1000 + SLACK_S, f"a batch of {limit_ms} ms")
    template = ctx.resource(judge, "delay")
    slow = SubRequest("GET", ctx.path(template.replace("{ms}", str(delay_ms))))
    resp = None
    for attempt in range(1, ATTEMPTS + 1):
        if attempt == 2:
            # Only a stopped part makes it matter how long the delay takes alone.
            _learn_delay_alone(ctx, judge, slow, delay_ms, limit_ms)
        trial = Judge("MB-TEST-7")
        trial.wait_s = judge.wait_s
        try:
            resp = ctx.batch(trial, [slow])
            unjudged_if_policy_refusal(judge, resp, "the batch of the delayed part")
            env = expect_processed(ctx, trial, resp, [slow.content_id])
            status = part_status(env, 0) if env.parts else None
        except StopCheck:
            status = None
        for ex in trial.exchanges:
            judge.record(ex)
        judge.note(f"attempt {attempt}: {resp.status if resp else None}, the part {status}")
        if status == 200:
            break
    assert resp is not None
    env = expect_processed(ctx, judge, resp, [slow.content_id])
    # MB-TEST-7: "a delayed part of a batch that ends within the declared budget is answered
    # as above" (200, "no sooner than *ms* milliseconds after it received the request").
    judge.expect(
        f"a {delay_ms} ms delay in a batch of {limit_ms} ms: part status",
        part_status(env, 0) if env.parts else None,
        {200},
        "MB-TEST-7",
    )
    _judge_slow_arrival(ctx, judge, limit_ms)


def _learn_delay_alone(
    ctx: Context, judge: Judge, slow: SubRequest, delay_ms: int, limit_ms: int
) -> None:
    """N/A unless the delay resource, asked alone, answers `delay_ms` with 200 soon enough
    that the same part in a batch can end within the budget: MB-TEST-7 bounds how soon it
    answers, not how late, and lets it refuse a count past the largest it accepts."""
    start = time.monotonic()
    alone = ctx.alone(judge, slow)
    took_ms = (time.monotonic() - start) * 1000
    judge.note(f"the delay of {delay_ms} ms alone: {alone.status} after {took_ms:.0f} ms")
    if alone.status != 200:
        judge.not_applicable(f"the delay resource answers {delay_ms} ms alone with {alone.status}")
    if took_ms > limit_ms - MARGIN_MS / 2:
        judge.not_applicable(
            f"the delay of {delay_ms} ms alone took {took_ms:.0f} ms, too near the budget of "
            f"{limit_ms} ms for the batch to end within it"
        )


def _judge_slow_arrival(ctx: Context, judge: Judge, limit_ms: int) -> None:
    """A one-part batch whose content arrives over ARRIVAL_SHARE of the budget (ARRIVAL_MAX_S
    at most) is processed."""
    if ctx.settings.http2 or ctx.settings.via is not None:
        # An intermediary may read the whole request before it forwards it, or keep a request
        # timeout of its own.
        judge.note("the slow batch goes direct over HTTP/1.1 only: not sent")
        return
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    content = compose_batch([ok], BOUNDARY)
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    length = ("Content-Length", str(len(content)))
    head = ctx.raw_request("POST", ctx.batch_path, [mixed, length], None)
    pieces = split_evenly(content, PIECES)
    arrival_s = min(limit_ms * ARRIVAL_SHARE / 1000, ARRIVAL_MAX_S)
    gap = arrival_s / (len(pieces) - 1)
    for attempt in range(1, ATTEMPTS + 1):
        ex, elapsed = trickled(ctx, judge, head, pieces, gap)
        judge.record(ex)
        resp = ex.response
        status = resp.status if resp is not None else None
        judge.note(f"slow arrival, attempt {attempt}: {status} after {elapsed:.2f} s")
        if status in POLICY_REFUSALS:
            judge.note(f"the slow batch was answered {status}, a refusal no fault of it causes")
            return
        if status == 200:
            break
    what = f"a batch whose content arrives over {arrival_s * 1000:.0f} ms of {limit_ms}"
    # MB-TEST-7: "MUST let a batch run that many milliseconds, counted from the moment it began
    # to receive the batch request, before it stops the batch for its time"; spec 14.4: a
    # refusal of content still arriving within the budget stops the batch for its time.
    judge.require(f"{what}: status", status, {200}, "MB-TEST-7")
    assert resp is not None
    env = expect_processed(ctx, judge, resp, [ok.content_id])
    judge.expect(f"{what}: part status", part_status(env, 0), {200}, "MB-TEST-7")
