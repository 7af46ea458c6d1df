"""Filling the budget of batches in flight (MB-LIMIT-6): the batches a check holds at once,
their slow part, and the batch it sends beyond them."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import Exchange, connect

__all__ = [
    "BUDGET",
    "CONCURRENT_LOAD",
    "HOLD_MS",
    "MAX_PROBED",
    "PROBE_STEP_S",
    "PROBE_UNTIL_S",
    "RELEASE_S",
    "RELEASE_STEP_S",
    "SETTLE_S",
    "beyond_held",
    "beyond_running",
    "hold_partly_sent",
    "probed_budget",
    "processed",
    "slow_part",
]

#: The limit's name, as the capabilities document spells it.
BUDGET = "max_batches_in_flight"
#: The most batches held at once (plus the one sent after them): twice the 16 a small server
#: commonly holds, and a bound on the connections a check opens.
MAX_PROBED = 32
#: Milliseconds each held batch's slow part takes: long enough to send one more batch while
#: every held one still runs, short enough that a check takes about a second.
HOLD_MS = 1000
#: Seconds the held batches get to reach the server before the one beyond them is sent.
SETTLE_S = 0.25
#: Seconds after the held batches were sent until which a processed batch beyond them is sent
#: again (a loaded server may admit the held ones late); well inside `HOLD_MS`.
PROBE_UNTIL_S = 0.7
#: Seconds between two batches sent beyond the held ones.
PROBE_STEP_S = 0.1
#: Seconds the server gets, once the held batches are gone, to process a batch again.
RELEASE_S = 3.0
#: Seconds between two batches sent while waiting for the server to let batches in again.
RELEASE_STEP_S = 0.05
CONCURRENT_LOAD = (
    "an intermediary may queue concurrent requests or spread them over its own connections"
)


def slow_part(ctx: Context, judge: Judge) -> str:
    """The path of the delay resource taking `HOLD_MS` (N/A where the target's declared
    batch_timeout_ms would cut a batch holding it short)."""
    delay = ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(HOLD_MS)))
    limit = ctx.target.batch_timeout_ms
    if limit is not None and limit <= HOLD_MS + 1000:
        judge.not_applicable(f"the slow part would outlast the declared batch_timeout_ms {limit}")
    return delay


def probed_budget(ctx: Context) -> int:
    """How many batches to hold at once: the published budget, between 1 and `MAX_PROBED`
    (`MAX_PROBED` when none is published)."""
    published = ctx.limit(BUDGET)
    return MAX_PROBED if published is None else max(1, min(published, MAX_PROBED))


def processed(ex: Exchange) -> bool:
    """Whether the server processed the batch: it answered 200."""
    return ex.response is not None and ex.response.status == 200


def beyond_held(ctx: Context, judge: Judge, request: bytes, held_at: float) -> Exchange:
    """The batch sent beyond the held ones after `SETTLE_S`, sent again while processed until
    `PROBE_UNTIL_S` after they were sent (at `held_at`)."""
    time.sleep(SETTLE_S)
    last = ctx.send_many(judge, [request])[0]
    while processed(last) and time.monotonic() - held_at < PROBE_UNTIL_S:
        time.sleep(PROBE_STEP_S)
        last = ctx.send_many(judge, [request])[0]
    return last


def beyond_running(
    ctx: Context, judge: Judge, slow: bytes, small: bytes, count: int, threads: str
) -> tuple[Exchange, list[Exchange]]:
    """`count` batches `slow` sent at once (on threads named `threads`) and `small` sent beyond
    them as `beyond_held` sends it: the last exchange of `small`, and theirs."""
    with ThreadPoolExecutor(count, thread_name_prefix=threads) as pool:
        held_at = time.monotonic()
        futures = [pool.submit(ctx.send_many, judge, [slow]) for _ in range(count)]
        last = beyond_held(ctx, judge, small, held_at)
        answers = [f.result()[0] for f in futures]
    return last, answers


def hold_partly_sent(ctx: Context, request: bytes, content: int, count: int) -> list[socket.socket]:
    """`count` connections, each having sent `request` less the second half of its `content`
    octets of content (all closed again if one cannot be opened or written)."""
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
