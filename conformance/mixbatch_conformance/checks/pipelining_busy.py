"""A request pipelined behind the budget's 503 is answered (spec 9.1, 11).

Theory of operation: MB-LIMIT-6 refuses a batch beyond the budget of batches in flight with 503
and `Retry-After` "before any part of it runs", and spec 11 counts that refusal among the
answers a connection outlives: "a refusal of a batch (400, 405, 406, 415, 501, and the 503 of
MB-LIMIT-6) leaves the connection answering the requests behind it, as a batch that ran does.
The one exception is an answer a server gives before it has read the request's content whole,
a 413 or 431". A server that sheds the connection with its 503 (`Connection: close`, or no
more reading), or that answers before reading the refused batch and then reads its content as
the next request, leaves the request behind it unanswered or answered 400.

`pipelining-behind-budget-refusal` fills the budget as `budget-refusal-retry-after` does: it
holds the published `max_batches_in_flight` batches at once (`MAX_PROBED` when none is
published), each a GET of the delay resource taking `HOLD_MS`, and after `SETTLE_S` writes on
one more connection a small batch with a GET of `ok` pipelined behind it. A batch that is
processed is sent again every `PROBE_STEP_S` until `PROBE_UNTIL_S` (a loaded server may admit
the held ones late); a server that refuses none of them is N/A. The refused batch is judged
only by what follows it: the GET must be answered 200, after the refusal (MB-PIPE-1); the
503's own fields are `budget-excess-batch-refused`'s. The check reads only; an intermediary
may de-pipeline or spread concurrent requests over its own connections, so it runs direct only.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.checks._shared.budget_load import (
    PROBE_STEP_S,
    PROBE_UNTIL_S,
    SETTLE_S,
    probed_budget,
    slow_part,
)
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange

__all__: list[str] = []

BOUNDARY = "mb-pipe-busy-4c1e7a93d0b2f856"
DIRECT_ONLY = (
    "an intermediary may de-pipeline, or queue concurrent requests and spread them over its "
    "own connections"
)


def _status(ex: Exchange) -> int | None:
    return ex.response.status if ex.response else None


@checker(
    "pipelining-behind-budget-refusal",
    ("MB-PIPE-1",),
    "A plain GET pipelined behind a batch refused 503 as beyond the budget of batches in flight is answered 200 after the refusal, on the same connection.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=DIRECT_ONLY,
)
def pipelining_behind_budget_refusal(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    delay = slow_part(ctx, judge)
    held = probed_budget(ctx)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    slow = ctx.raw_request(
        "POST", ctx.batch_path, head, compose_batch([SubRequest("GET", delay)], BOUNDARY)
    )
    small = ctx.raw_request(
        "POST", ctx.batch_path, head, compose_batch([SubRequest("GET", ok)], BOUNDARY)
    )
    follower = ctx.raw_request("GET", ok)
    tries: list[list[int | None]] = []
    refused: list[Exchange] = []
    with ThreadPoolExecutor(held, thread_name_prefix="mixbatch-pipe-busy") as pool:
        start = time.monotonic()
        futures = [pool.submit(ctx.send_many, judge, [slow]) for _ in range(held)]
        time.sleep(SETTLE_S)
        while True:
            pair = ctx.send_many(judge, [small, follower])
            tries.append([_status(ex) for ex in pair])
            if _status(pair[0]) != 200:
                refused = pair
                break
            if time.monotonic() - start + PROBE_STEP_S > PROBE_UNTIL_S:
                break
            time.sleep(PROBE_STEP_S)
        statuses = [_status(f.result()[0]) for f in futures]
    judge.note(f"{held} batches held at once answered {statuses}; pipelines beyond them {tries}")
    if not refused:
        judge.not_applicable(f"no batch beyond {held} held at once was refused")
    first, second = refused
    if first.response is None:
        judge.setup_error(f"the batch beyond the held ones got no answer: {first.error}")
    if first.response.status != 503:
        judge.not_applicable(
            f"the batch beyond the held ones was answered {first.response.status}, not the "
            "budget's 503"
        )
    connection = first.response.get("Connection") or "-"
    # MB-PIPE-1: "a refusal of a batch (400, 405, 406, 415, 501, and the 503 of MB-LIMIT-6)
    # leaves the connection answering the requests behind it, as a batch that ran does";
    # MB-TEST-1 fixes 200 for ok.
    judge.expect(
        f"status of the GET behind the budget's 503 (Connection: {connection})",
        _status(second),
        {200},
        "MB-PIPE-1",
    )
