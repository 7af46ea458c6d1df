"""The places of batches whose clients left mid-answer are given back (spec 9.1, MB-LIMIT-6).

Theory of operation: MB-LIMIT-6 has a server "answer a batch request beyond that budget with
503", and spec 9.1 holds a batch in flight "until its response is complete", adding that a
batch whose client has gone "is no longer held" once the server has stopped writing to that
connection. A server that gives a batch's place back only on the path where the answer was
written whole (not in a `finally`, not when a write fails) keeps one place for every client
that leaves mid-answer, and after as many as its budget refuses every batch though none is in
flight.

The check fills the published `max_batches_in_flight` with such clients, one after another:
each sends a batch of a GET of the random resource at the largest of 1 MiB, 256 KiB and 64 KiB
it serves alone, then a GET of the delay resource taking `HOLD_MS`, reads the first octets of
the answer, and resets the connection (`SO_LINGER` 0), so the server's next writes fail. After
`SETTLE_S` a batch of one GET of `ok` is sent alone, and again after each 503's `Retry-After`
(at most `RETRY_CAP_S` apart) until `RELEASE_WINDOW_S` has passed: it must be processed (200).
The same lone batch is first sent, in the same way, before any client leaves: the suite holds
no other batch then either, so a server refusing it already keeps places no batch holds (those
of an earlier check's clients that left, or of connections that closed).
N/A without a published budget from 1 to `MAX_LEFT`, a random or a delay resource; it runs
direct only and over HTTP/1.1, since the client leaves its own connection.
"""

from __future__ import annotations

import socket
import struct
import time

from mixbatch_conformance.checks._shared.budget_load import BUDGET, CONCURRENT_LOAD
from mixbatch_conformance.checks._shared.random_counts import largest_served
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import retry_after_s
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange, connect

__all__: list[str] = []

#: The largest budget the check fills, one client at a time.
MAX_LEFT = 32
#: Random counts tried, largest first: enough that the answer outgrows the socket buffers.
RANDOM_COUNTS = (1 << 20, 1 << 18, 1 << 16)
#: How long the slow part after the random one waits, so the batch is still being answered.
HOLD_MS = 300
#: Seconds the server gets, after the last client left, to notice before the first probe.
SETTLE_S = 1.5
#: Seconds after the last client left within which a lone batch must be processed again.
RELEASE_WINDOW_S = 10.0
#: The longest pause between two probes, whatever a 503's Retry-After asks.
RETRY_CAP_S = 2.0
BOUNDARY = "mb-budget-leaving-5c81e0a93d7f"


def _send_and_reset(ctx: Context, judge: Judge, request: bytes) -> None:
    """Send `request` on a connection of its own, read the first octets of its answer and
    reset the connection."""
    sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
    got = b""
    try:
        sock.sendall(request)
        got = sock.recv(4096)
    except OSError as exc:
        judge.note(f"a leaving client: {type(exc).__name__} before it left")
    finally:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    status = got.split(b"\r\n", 1)[0].decode("latin-1", "replace")
    judge.record(Exchange(request, None, f"the client reset the connection after {status!r}"))


def _lone_batches(ctx: Context, judge: Judge, ok: SubRequest, since: float) -> list[int]:
    """The statuses of a batch of `ok` sent alone, again after each 503's Retry-After (at
    most `RETRY_CAP_S` apart), until one is not 503 or `RELEASE_WINDOW_S` after `since`."""
    statuses: list[int] = []
    while True:
        resp = ctx.batch(judge, [ok])
        statuses.append(resp.status)
        pause = max(0.25, min(RETRY_CAP_S, retry_after_s(resp)))
        if resp.status != 503 or time.monotonic() + pause - since > RELEASE_WINDOW_S:
            return statuses
        time.sleep(pause)


@checker(
    "budget-places-given-back-when-clients-leave",
    ("MB-LIMIT-6",),
    "A batch sent alone is processed (at once, or after the Retry-After of a 503 within 10 s), and again after as many clients as the published budget of batches in flight each reset its connection while its batch was being answered: the places of batches whose clients left are given back.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=CONCURRENT_LOAD,
)
def budget_places_given_back_when_clients_leave(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("each client leaves an HTTP/1.1 connection of its own")
    budget = ctx.limit(BUDGET)
    if budget is None or not 1 <= budget <= MAX_LEFT:
        judge.not_applicable(f"{BUDGET} {budget} is not a published budget from 1 to {MAX_LEFT}")
    random = ctx.resource(judge, "random")
    delay = ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(HOLD_MS)))
    count = largest_served(ctx, judge, random, RANDOM_COUNTS)
    if count is None:
        judge.not_applicable(f"the random resource serves none of {list(RANDOM_COUNTS)} alone")
    ok, _ = ok_and_not_found(ctx, judge)
    before = _lone_batches(ctx, judge, ok, time.monotonic())
    # MB-LIMIT-6: 503 only for "a batch request beyond that budget": the suite holds no other
    # batch, so a lone one is within it (a place kept by an earlier check's batch whose client
    # left shows here, as the clients below would show it).
    if not judge.expect(
        f"a lone batch before any client left (statuses in turn: {before})",
        before[-1],
        {200},
        "MB-LIMIT-6",
        allowed_text=f"200 within {RELEASE_WINDOW_S:g} s",
    ):
        return
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    subs = [
        SubRequest("GET", ctx.path(random.replace("{n}", str(count)))),
        SubRequest("GET", delay),
    ]
    request = ctx.raw_request("POST", ctx.batch_path, head, compose_batch(subs, BOUNDARY))
    for _ in range(budget):
        _send_and_reset(ctx, judge, request)
    left = time.monotonic()
    time.sleep(SETTLE_S)
    statuses = _lone_batches(ctx, judge, ok, left)
    # MB-LIMIT-6: 503 only for "a batch request beyond that budget"; spec 9.1: a batch whose
    # client has gone "is no longer held" once the server stopped writing to that connection,
    # so with the clients gone and none of their batches held, a lone batch is within it.
    judge.expect(
        f"a lone batch after {budget} clients left mid-answer (statuses in turn: {statuses})",
        statuses[-1],
        {200},
        "MB-LIMIT-6",
        allowed_text=f"200 within {RELEASE_WINDOW_S:g} s of the last client leaving",
    )
