"""The budget of batches in flight holds a batch for its whole life (spec 9.1, MB-LIMIT-6).

Theory of operation: MB-LIMIT-6 asks a server to "bound the batches it holds in flight" and to
answer "a batch request beyond that budget with 503 (Service Unavailable) and a `Retry-After`
field". A batch is in flight from the moment the server begins to receive it until its response
is complete: while it is received, while its envelope is validated, while its parts run and
while its response is written. A server that gives a batch's place back at some point of that
life (once the envelope is validated, once the parts start) holds only the batches in the
earlier phases, and lets any number of running batches in.

The budget is not published by every server, so the check learns it from the same server, in
two rounds of `MAX_PROBED` batches held at once:

    receiving   `MAX_PROBED` connections each send a batch's head and half of its content
                (a `Content-Length` of the whole), and wait; after `SETTLE_S` one complete
                batch is sent. A server that processes it refuses nothing while that many are
                being received, and the check is N/A: its budget, if any, is larger or held
                only later. Otherwise the held connections are closed and the server is given
                up to `RELEASE_S` to process a batch again.
    running     `MAX_PROBED` complete batches, each a GET of `ok` followed by a GET of the
                delay resource taking `HOLD_MS`, are sent at once (a streaming server writes
                part 0 of each while its slow part runs, so they are both running and being
                written); after `SETTLE_S` one more batch is sent. It must be refused as the
                complete batch was while as many were being received: 503 with Retry-After.

In each phase a batch beyond the held ones that is processed is sent again every
`PROBE_STEP_S` until `PROBE_UNTIL_S` after the held ones were sent, so a loaded server that
admits them late is judged once it has.

The same number of batches refused in one phase and let in in a later one is a budget that does
not hold a batch for its whole life. The check reads `ok` and the delay resource only; an
intermediary may queue concurrent requests or spread them over its own connections, so it runs
direct only, over HTTP/1.1 (the partial sends are written on plain or TLS sockets).
"""

from __future__ import annotations

import select
import socket
import time

from mixbatch_conformance.checks._shared.budget_load import (
    CONCURRENT_LOAD,
    MAX_PROBED,
    PROBE_STEP_S,
    PROBE_UNTIL_S,
    RELEASE_S,
    RELEASE_STEP_S,
    SETTLE_S,
    beyond_running,
    hold_partly_sent,
    slow_part,
)
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_retry_after
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-phases-5b8e2d0a97c4f163"


def _status_of(ctx: Context, judge: Judge, request: bytes) -> int:
    return ctx.send(judge, request).status


def _answered(held: list[socket.socket]) -> int:
    """How many of the held connections have octets (an early answer) or an end waiting."""
    try:
        readable, _, _ = select.select(held, [], [], 0)
    except (OSError, ValueError):
        return 0
    return len(readable)


@checker(
    "budget-holds-running-batches",
    ("MB-LIMIT-6",),
    "A server that refuses a batch while 32 others are being received also refuses one while "
    "32 others run and are written: the budget of batches in flight holds a batch from its "
    "first octet to the end of its response.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=CONCURRENT_LOAD,
)
def budget_holds_running_batches(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the partly sent batches are written on HTTP/1.1 connections")
    ok = ctx.path(ctx.resource(judge, "ok"))
    delay = slow_part(ctx, judge)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    small_body = compose_batch([SubRequest("GET", ok)], BOUNDARY)
    small = ctx.raw_request("POST", ctx.batch_path, head, small_body)

    # Phase 1: batches being received.
    try:
        held = hold_partly_sent(ctx, small, len(small_body), MAX_PROBED)
    except OSError as exc:
        judge.setup_error(f"could not hold {MAX_PROBED} connections: {exc}")
    try:
        held_at = time.monotonic()
        time.sleep(SETTLE_S)
        receiving = _status_of(ctx, judge, small)
        while receiving == 200 and time.monotonic() - held_at < PROBE_UNTIL_S:
            time.sleep(PROBE_STEP_S)
            receiving = _status_of(ctx, judge, small)
        early = _answered(held)
    finally:
        for sock in held:
            sock.close()
    judge.note(
        f"with {MAX_PROBED} batches being received ({early} of them answered early), "
        f"one more was answered {receiving}"
    )
    if receiving != 503:
        judge.not_applicable(
            f"a batch sent while {MAX_PROBED} were being received was answered {receiving}, "
            "not refused 503"
        )
    deadline = time.monotonic() + RELEASE_S
    while _status_of(ctx, judge, small) != 200:
        if time.monotonic() > deadline:
            judge.not_applicable(
                f"no batch was processed within {RELEASE_S} s of closing the held connections"
            )
        time.sleep(RELEASE_STEP_S)

    # Phase 2: batches running and being written.
    slow = ctx.raw_request(
        "POST",
        ctx.batch_path,
        head,
        compose_batch([SubRequest("GET", ok), SubRequest("GET", delay)], BOUNDARY),
    )
    last, answers = beyond_running(ctx, judge, slow, small, MAX_PROBED, "mixbatch-phases")
    if last.response is None:
        judge.setup_error(f"the batch sent beyond the running ones got no answer: {last.error}")
    statuses = sorted(ex.response.status if ex.response else 0 for ex in answers)
    judge.note(f"{MAX_PROBED} running batches answered {statuses}")
    response = last.response
    # MB-LIMIT-6: "SHOULD bound the batches it holds in flight ... and SHOULD answer a batch
    # request beyond that budget with 503 (Service Unavailable)": a batch whose parts run or
    # whose response is being written is still in flight, so the batch refused while as many
    # were being received is refused while they run.
    judge.expect(
        f"a batch sent while {MAX_PROBED} run (refused while {MAX_PROBED} were received)",
        response.status,
        {503},
        "MB-LIMIT-6",
    )
    if response.status == 503:
        expect_retry_after(judge, response)
