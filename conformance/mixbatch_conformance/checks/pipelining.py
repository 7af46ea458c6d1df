"""Pipelining checks (spec 11): pipelined plain and batch requests are answered in order.

Theory of operation: five requests, plain and batch mixed, are written on one connection
before any answer is read; the statuses and the batch part counts must come back in the order
sent (MB-PIPE-1). Answers that come back in order only because they were also completed in
order prove little, so when the target declares a `delay` resource the first request is a GET
of it that takes `SLOW_FIRST_MS` (MB-TEST-7: 200, no sooner): a server that runs pipelined
requests side by side and writes each answer when it is ready puts the 404 of the third request
first. An intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

BOUNDARY = "mb-pipe-3e8a1f0c7b2d9465"
#: Milliseconds the first request takes when the target has a delay resource: far longer than
#: the four behind it take on loopback, short enough for the smoke tier.
SLOW_FIRST_MS = 300


@checker(
    "pipelining-in-order",
    ("MB-PIPE-1",),
    "Pipelined plain and batch requests on one connection are answered in the order sent.",
    profile="pipelining",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    delay = ctx.target.resource("delay")
    # MB-TEST-7: a GET of the delay resource is answered 200 "no sooner than ms milliseconds".
    first = ctx.path(delay.replace("{ms}", str(SLOW_FIRST_MS))) if delay else ok.target
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch_a = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([nf, ok], BOUNDARY))
    batch_b = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([ok], BOUNDARY))
    requests = [
        ctx.raw_request("GET", first),
        batch_a,
        ctx.raw_request("GET", nf.target),
        batch_b,
        ctx.raw_request("GET", ok.target),
    ]
    # MB-PIPE-1: "answer pipelined requests on a connection, batch requests and other requests
    # alike, in the order it received them"; MB-TEST-1 fixes 200 for ok and 404 for not_found.
    exchanges = ctx.send_many(judge, requests)
    statuses = [ex.response.status if ex.response else None for ex in exchanges]
    judge.require("statuses in order", statuses, [[200, 200, 404, 200, 200]])
    counts = []
    for ex in (exchanges[1], exchanges[3]):
        assert ex.response is not None
        _, params = parse_media_type(ex.response.get("Content-Type") or "x/y")
        counts.append(len(read_multipart(ex.response.body, params.get("boundary", "")).parts))
    judge.expect("batch part counts in order", counts, [[2, 1]])
