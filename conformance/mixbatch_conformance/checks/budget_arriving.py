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

import socket
import time
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_retry_after
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange, connect

__all__: list[str] = []

#: The most batches held at once (plus the one sent after them): twice the 16 a small server
#: commonly holds, and a bound on the connections the check opens.
MAX_PROBED = 32
#: Milliseconds each running batch's slow part takes: long enough to send one more batch while
#: every held one still runs.
HOLD_MS = 1000
#: Seconds the held batches get to reach the server before the one beyond them is sent.
SETTLE_S = 0.25
#: Seconds after the held batches were sent until which a processed batch beyond them is sent
#: again; well inside `HOLD_MS`.
PROBE_UNTIL_S = 0.7
#: Seconds between two batches sent beyond the held ones.
PROBE_STEP_S = 0.1
#: Seconds the server gets, once the running batches are answered, to process a batch again.
RELEASE_S = 3.0
#: Seconds between two batches sent while waiting for the server to let batches in again.
RELEASE_STEP_S = 0.05
BOUNDARY = "mb-arriving-0e93c6a1d27b54f8"
CONCURRENT_LOAD = (
    "an intermediary may queue concurrent requests or spread them over its own connections"
)


def _processed(ex: Exchange) -> bool:
    return ex.response is not None and ex.response.status == 200


def _beyond(ctx: Context, judge: Judge, request: bytes, held_at: float) -> Exchange:
    """The batch sent beyond the held ones, sent again while processed until `PROBE_UNTIL_S`."""
    time.sleep(SETTLE_S)
    last = ctx.send_many(judge, [request])[0]
    while _processed(last) and time.monotonic() - held_at < PROBE_UNTIL_S:
        time.sleep(PROBE_STEP_S)
        last = ctx.send_many(judge, [request])[0]
    return last


def _hold_arriving(ctx: Context, request: bytes, content: int, count: int) -> list[socket.socket]:
    """`count` connections, each having sent `request` less the second half of its `content`
    octets of content."""
    held: list[socket.socket] = []
    cut = len(request) - content // 2
    try:
        for _ in range(count):
            sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
            held.append(sock)
            sock.sendall(request[:cut])
    except OSError:
        for sock in held:
            sock.close()
        raise
    return held


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
    delay = ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(HOLD_MS)))
    limit = ctx.target.batch_timeout_ms
    if limit is not None and limit <= HOLD_MS + 1000:
        judge.not_applicable(f"the slow part would outlast the declared batch_timeout_ms {limit}")
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
    with ThreadPoolExecutor(held, thread_name_prefix="mixbatch-arriving") as pool:
        held_at = time.monotonic()
        futures = [pool.submit(ctx.send_many, judge, [slow]) for _ in range(held)]
        running = _beyond(ctx, judge, small, held_at)
        for f in futures:
            f.result()
    status = running.response.status if running.response else 0
    judge.note(f"with {held} batches running, one more was answered {status or running.error}")
    if status != 503:
        judge.not_applicable(
            f"a batch sent while {held} ran was answered {status or running.error}, not refused 503"
        )
    deadline = time.monotonic() + RELEASE_S
    while not _processed(ctx.send_many(judge, [small])[0]):
        if time.monotonic() > deadline:
            judge.not_applicable(f"no batch was processed within {RELEASE_S} s of the held ones")
        time.sleep(RELEASE_STEP_S)

    # Round 2: batches arriving, their content sent part-way.
    try:
        socks = _hold_arriving(ctx, small, len(small_body), held)
    except OSError as exc:
        judge.setup_error(f"could not hold {held} connections: {exc}")
    try:
        arriving = _beyond(ctx, judge, small, time.monotonic())
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
