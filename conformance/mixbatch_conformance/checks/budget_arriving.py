"""The budget of batches in flight holds a batch from its first octet (spec 9.1, MB-LIMIT-6).

Theory of operation: spec 9.1 says "A batch is held in flight from the moment its server
begins to receive it until its response is complete: while it arrives, while it is validated,
while its parts run and while its response is written". `budget-holds-running-batches` learns the refusal while
batches are received and expects it while they run; this check is its converse, for a server
that takes a batch's place in the budget only once its content has been read (the budget taken
to be for batches being validated and run), so that batches still arriving hold nothing. It
holds `held` batches at once in two rounds, where `held` is the published
`max_batches_in_flight` when it is at most `MAX_PROBED`, else `MAX_PROBED`:

    running     `held` complete batches, each a GET of `ok` followed by a GET of the delay
                resource taking `HOLD_MS`, are sent at once; after `SETTLE_S` one more batch
                is sent. A server that processes it refuses nothing while that many run, and
                the check is N/A (its budget, if any, is larger). Otherwise the check waits
                for the held batches' answers and for the server to process a batch again.
    arriving    `held` connections each send a batch's head and half of its content (a
                `Content-Length` of the whole) and wait; after `SETTLE_S` one complete batch is
                sent. It must be refused as it was while as many ran: 503 with Retry-After.

In each round a batch beyond the held ones that is processed is sent again every
`PROBE_STEP_S` until `PROBE_UNTIL_S` after the held ones were sent, so that a loaded server
that admits them late is judged once it has. The check reads `ok` and the delay resource only;
an intermediary may queue concurrent requests or spread them over its own connections, so it
runs direct only, over HTTP/1.1 (the partial sends are written on plain or TLS sockets).
"""

from __future__ import annotations

import time

from mixbatch_conformance.checks._shared.budget_load import (
    CONCURRENT_LOAD,
    MAX_PROBED,
    RELEASE_S,
    RELEASE_STEP_S,
    beyond_held,
    beyond_running,
    hold_partly_sent,
    processed,
    slow_part,
)
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_retry_after
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-arriving-0e93c6a1d27b54f8"


@checker(
    "budget-holds-arriving-batches",
    ("MB-LIMIT-6",),
    "A server that refuses a batch while 32 others (or its published max_batches_in_flight) "
    "run also refuses one while as many are still arriving, their content sent part-way: a "
    "batch holds its place in the budget from the moment it begins to arrive.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=CONCURRENT_LOAD,
)
def budget_holds_arriving_batches(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the partly sent batches are written on HTTP/1.1 connections")
    ok = ctx.path(ctx.resource(judge, "ok"))
    delay = slow_part(ctx, judge)
    published = ctx.limit("max_batches_in_flight")
    held = published if published is not None and 0 < published <= MAX_PROBED else MAX_PROBED
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    small_body = compose_batch([SubRequest("GET", ok)], BOUNDARY)
    small = ctx.raw_request("POST", ctx.batch_path, head, small_body)
    slow = ctx.raw_request(
        "POST",
        ctx.batch_path,
        head,
        compose_batch([SubRequest("GET", ok), SubRequest("GET", delay)], BOUNDARY),
    )

    # Round 1: batches running.
    running, _ = beyond_running(ctx, judge, slow, small, held, "mixbatch-arriving")
    status = running.response.status if running.response else 0
    judge.note(f"with {held} batches running, one more was answered {status or running.error}")
    if status != 503:
        judge.not_applicable(
            f"a batch sent while {held} ran was answered {status or running.error}, not refused 503"
        )
    deadline = time.monotonic() + RELEASE_S
    while not processed(ctx.send_many(judge, [small])[0]):
        if time.monotonic() > deadline:
            judge.not_applicable(f"no batch was processed within {RELEASE_S} s of the held ones")
        time.sleep(RELEASE_STEP_S)

    # Round 2: batches arriving, their content sent part-way.
    try:
        socks = hold_partly_sent(ctx, small, len(small_body), held)
    except OSError as exc:
        judge.setup_error(f"could not hold {held} connections: {exc}")
    try:
        arriving = beyond_held(ctx, judge, small, time.monotonic())
    finally:
        for sock in socks:
            sock.close()
    if arriving.response is None:
        judge.setup_error(
            f"the batch sent beyond the arriving ones got no answer: {arriving.error}"
        )
    response = arriving.response
    # MB-LIMIT-6: "SHOULD bound the batches it holds in flight ... and SHOULD answer a batch
    # request beyond that budget with 503"; spec 9.1: "A batch is held in flight from the
    # moment its server begins to receive it ... while it arrives": batches still arriving
    # hold their places as running ones do.
    judge.expect(
        f"a batch sent while {held} arrive (refused while {held} ran)",
        response.status,
        {503},
        "MB-LIMIT-6",
    )
    if response.status == 503:
        expect_retry_after(judge, response)
