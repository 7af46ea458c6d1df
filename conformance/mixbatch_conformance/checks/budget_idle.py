"""A batch's time budget starts with its own request, not with the connection's idle time
(spec 9.1, MB-SEC-1).

Theory of operation: MB-SEC-1 has a server "bound the wall-clock time ... it spends on one
batch", and the target description's `batch_timeout_ms` counts that time "from when it begins
to receive the request (reception included)". On a persistent connection the time between the
previous answer and the next request's first octet belongs to no batch: a server that starts
the clock when it begins to wait for the next request charges that idle time to the batch that
follows, and refuses or aborts a batch that arrived at once. The check sends a GET of `ok` on a
connection of its own, reads its answer, leaves the connection idle for the declared
`batch_timeout_ms` and `IDLE_MARGIN_S` more, then sends a one-part batch on it, which must be
processed as a batch sent on a fresh connection is. A server may close an idle connection (RFC
9112 §9.8): then nothing is judged. The check is N/A without a declared `batch_timeout_ms`, and
runs direct only, since an intermediary keeps connections of its own to the server.
"""

from __future__ import annotations

import select
import socket
import time

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import (
    Exchange,
    ResponseError,
    Source,
    connect,
    method_of,
    read_response,
)

__all__: list[str] = []

BOUNDARY = "mb-idle-budget-7d20c4e9"
#: Seconds the connection stays idle beyond the declared batch_timeout_ms.
IDLE_MARGIN_S = 0.5


def _closed(sock: socket.socket) -> bool:
    """Whether the peer closed the connection (or sent something unasked) while it was idle."""
    ready, _, _ = select.select([sock], [], [], 0)
    return bool(ready)


def _exchange(sock: socket.socket, reader: Source, request: bytes) -> Exchange:
    try:
        sock.sendall(request)
        return Exchange(request, read_response(reader, method_of(request)))
    except (ResponseError, OSError) as exc:
        return Exchange(request, None, f"{type(exc).__name__}: {exc}")


@checker(
    "batch-budget-starts-with-its-request",
    ("MB-SEC-1", "MB-TEST-7"),
    "On a persistent connection left idle longer than the declared batch_timeout_ms after an answer, the batch sent next is processed: its time budget counts from its own request, not from the end of the answer before it.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary keeps connections of its own to the server, so the idle time "
    "the check leaves on its connection is not the server's",
)
def batch_budget_starts_with_its_request(ctx: Context, judge: Judge) -> None:
    budget = ctx.target.batch_timeout_ms
    if budget is None:
        judge.not_applicable("the target declares no batch_timeout_ms")
    ok, _ = ok_and_not_found(ctx, judge)
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch = ctx.raw_request("POST", ctx.batch_path, mixed, compose_batch([ok], BOUNDARY))
    sock = connect(ctx.host, ctx.port, ctx.timeout_for(judge), ctx.tls)
    reader = sock.makefile("rb")
    try:
        first = judge.record(_exchange(sock, reader, ctx.raw_request("GET", ok.target)))
        if first.response is None or not first.response.persistent:
            judge.not_applicable("the server does not keep the connection after a GET")
        time.sleep(budget / 1000 + IDLE_MARGIN_S)
        if _closed(sock):
            judge.not_applicable(
                f"the server closed the connection within {budget / 1000 + IDLE_MARGIN_S:g} s "
                "of idleness (RFC 9112 §9.8 lets it)"
            )
        after = judge.record(_exchange(sock, reader, batch))
    finally:
        reader.close()
        sock.close()
    if after.response is None:
        judge.not_applicable(f"the batch after the idle time got no answer ({after.error})")
    # MB-SEC-1: the budget bounds "the wall-clock time ... it spends on one batch", counted
    # from when the server begins to receive the request (the target's batch_timeout_ms): the
    # idle time before it is spent on no batch, so this one runs as it would on its own.
    judge.require(
        "status of the batch sent after the idle time", after.response.status, {200}, "MB-SEC-1"
    )
    env = expect_processed(ctx, judge, after.response, [ok.content_id], [{200}], "MB-SEC-1")
    # MB-TEST-7: a server that declares batch_timeout_ms "MUST let a batch run that many
    # milliseconds, counted from the moment it began to receive the batch request".
    judge.expect(
        "the part of the batch sent after the idle time, counted from its own request",
        part_status(env, 0) if env.parts else None,
        {200},
        "MB-TEST-7",
    )
