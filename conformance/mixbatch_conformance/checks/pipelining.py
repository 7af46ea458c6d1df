"""Pipelining checks (spec 11): pipelined plain and batch requests are answered in order.

Theory of operation: five requests, plain and batch mixed, are written on one connection
before any answer is read; the statuses and the batch part counts must come back in the order
sent (MB-PIPE-1). An intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

BOUNDARY = "mb-pipe-3e8a1f0c7b2d9465"


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
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch_a = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([nf, ok], BOUNDARY))
    batch_b = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([ok], BOUNDARY))
    requests = [
        ctx.raw_request("GET", ok.target),
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
