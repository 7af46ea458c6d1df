"""The delay resource at the largest ms its target declares (spec 14.4, MB-TEST-7).

Theory of operation: MB-TEST-7 asks the `delay` resource for 200 "no sooner than *ms*
milliseconds after it received the request, for every *ms* up to the largest it accepts, and
with a 4xx status for any larger *ms*". Asked from outside, that largest ms is whatever the
resource first refuses, and a resource whose bound is off (milliseconds compared as another
unit, a `<` written for a `<=`) refuses later or sooner than it says without any answer being
wrong on its face. A target description that declares the largest ms (`delay_max_ms`) fixes the
edge: the resource then refuses the ms after it with a 4xx, and waits out the declared ms
itself. `delay-past-declared-largest` asks for the ms after the declared one alone (4xx, waited
for as long as a resource that took the count would wait, and `SLACK_S` more), then as a part,
and, all at once, for the declared ms and each power of ten below it: each is watched for
`WATCH_S`, and an answer in that time must be 200 and no sooner than asked, while silence is a
resource still waiting, as it must (so a refusal inside the declared bound shows without the
check standing idle for the whole of it).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange

__all__: list[str] = []

#: Seconds each count within the declared largest is watched for an answer that comes too soon.
WATCH_S = 1.5
#: Seconds an answer is waited for beyond the count a resource that takes it would wait.
SLACK_S = 2.0
#: The 4xx statuses MB-TEST-7 asks for any larger ms.
CLIENT_ERRORS = set(range(400, 500))


def _get(ctx: Context, template: str, ms: int) -> SubRequest:
    return SubRequest("GET", ctx.path(template.replace("{ms}", str(ms))))


@checker(
    "delay-past-declared-largest",
    ("MB-TEST-7",),
    "Where the target declares delay_max_ms, the delay resource answers the ms after it with a 4xx, alone and as a part, and neither refuses that ms nor any power of ten below it nor answers one sooner than asked.",
    state=State.READ_ONLY,
)
def delay_past_declared_largest(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "delay")
    largest = ctx.target.delay_max_ms
    if largest is None:
        judge.not_applicable("the target declares no delay_max_ms, the largest ms it waits")
    over = _get(ctx, template, largest + 1)
    # A resource that takes the count waits it out before it answers: the answer is waited
    # for that long and `SLACK_S` more.
    wait = (largest + 1) / 1000 + SLACK_S
    ex = ctx.send_within(judge, ctx.raw_request("GET", over.target), wait)
    status = ex.response.status if ex.response else None
    # MB-TEST-7: "a server whose description declares it MUST answer ... any larger *ms* with
    # a 4xx status".
    refused = judge.expect(
        f"GET {largest + 1} alone (one over the declared delay_max_ms {largest})",
        status,
        CLIENT_ERRORS,
        "MB-TEST-7",
        allowed_text=f"a 4xx status (no answer within {wait:g} s: {ex.error})"
        if status is None
        else "a 4xx status",
    )
    if refused:
        env = expect_processed(ctx, judge, ctx.batch(judge, [over]), [over.content_id])
        # MB-TEST-7 binds the resource whoever asks: a sub-request is answered as alone.
        judge.expect(
            f"GET {largest + 1} as a part",
            part_status(env, 0),
            CLIENT_ERRORS,
            "MB-TEST-7",
            allowed_text="a 4xx status",
        )
    # Within the declared largest: the declared ms itself and each power of ten below it. An
    # answer is due only once its ms have passed, so each is watched for `WATCH_S` at most: a
    # 4xx, or a 200 sooner than asked, is a fault; silence is a resource still waiting, as it
    # must (the connection is then closed and the wait not seen out).
    counts = sorted({largest, *(10**k for k in range(1, 7) if 10**k <= largest)})
    requests = [ctx.raw_request("GET", _get(ctx, template, ms).target) for ms in counts]

    def watched(request: bytes) -> tuple[Exchange, float]:
        started = time.monotonic()
        ex = ctx.send_within(judge, request, WATCH_S)
        return ex, (time.monotonic() - started) * 1000

    with ThreadPoolExecutor(len(requests), thread_name_prefix="mixbatch-delay-max") as pool:
        answers = list(pool.map(watched, requests))
    for ms, (ex, elapsed_ms) in zip(counts, answers, strict=True):
        if ex.response is None:
            judge.note(f"GET {ms}: still waiting after {WATCH_S:g} s, as a count it serves")
            continue
        # MB-TEST-7: "MUST answer every *ms* up to and including it as above": 200, no sooner
        # than *ms* milliseconds after it received the request.
        judge.expect(
            f"GET {ms} (within delay_max_ms {largest}) status",
            ex.response.status,
            {200},
            "MB-TEST-7",
        )
        judge.expect_true(
            f"GET {ms} answered no sooner than asked",
            elapsed_ms >= ms,
            f"{elapsed_ms:.0f} ms",
            f"at least {ms} ms",
            "MB-TEST-7",
        )
