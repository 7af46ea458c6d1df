"""Pipelined writes take effect in the order received (spec 11, MB-PIPE-1).

Theory of operation: MB-PIPE-1 has pipelined requests answered "in the order it received them",
and spec 11 adds what RFC 9112 §9.3.2 implies: a server "MAY process a sequence of pipelined
requests in parallel if they all have safe methods", and a batch is a `POST`, so a request
pipelined behind a batch is processed after it and sees what it wrote. A server that reads the
next request while a batch runs and starts it at once answers in order all the same, so the
order of answers shows nothing; what the later request finds does. The check creates a sandbox
member alone, then writes four requests on one connection before reading any answer: a batch
whose first part waits `DELAY_MS` on the delay resource and whose second part PUTs a new
document to the member, a GET of the member, a batch that waits and DELETEs it, and a GET of it
again. The first GET must find the new document (its marker values, where the sandbox is
declared `reads_back`, MB-TEST-4) and the second none (404 or 410). An
intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-pipe-effects-5c1e9a73"
#: How long the first part of each batch waits: far longer than a GET behind it takes on
#: loopback, so a server that starts that GET at once answers it before the write has run.
DELAY_MS = 400
#: What a GET of a member that was deleted may get (MB-TEST-3: 404; RFC 9110 §15.5.11: 410).
GONE = frozenset({404, 410})
JSON = (("Content-Type", "application/json"),)


def _updated(ctx: Context) -> tuple[bytes, bytes]:
    """The target's member document with every string value replaced by a fresh marker, and the
    marker (MB-TEST-4: a member reads back with the values it was written with)."""
    member: dict[str, Any] = ctx.target.sandbox_member or {}
    marker = f"mb-suite-pipelined-{secrets.token_hex(6)}"
    doc = {k: marker if isinstance(v, str) else v for k, v in member.items()}
    return json.dumps(doc).encode(), marker.encode()


@checker(
    "pipelined-writes-take-effect-in-order",
    ("MB-PIPE-1",),
    "A GET pipelined behind a batch that waits and then PUTs a sandbox member finds the new document, and one behind a batch that waits and then DELETEs it finds none: pipelined requests are processed in the order received, not side by side.",
    profile="pipelining",
    state=State.WRITES_IN_SANDBOX,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelined_writes_in_order(ctx: Context, judge: Judge) -> None:
    delay = ctx.target.resource("delay")
    if not delay:
        judge.not_applicable("the target declares no delay resource to keep a batch running")
    wait = ctx.path(delay.replace("{ms}", str(DELAY_MS)))
    path, _ = new_member(ctx, judge)
    try:
        _judge(ctx, judge, wait, path)
    finally:
        ctx.alone(judge, SubRequest("DELETE", path))


def _judge(ctx: Context, judge: Judge, wait: str, path: str) -> None:
    doc, marker = _updated(ctx)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]

    def batch(last: SubRequest) -> bytes:
        body = compose_batch([SubRequest("GET", wait), last], BOUNDARY)
        return ctx.raw_request("POST", ctx.batch_path, head, body)

    requests = [
        batch(SubRequest("PUT", path, JSON, doc)),
        ctx.raw_request("GET", path),
        batch(SubRequest("DELETE", path)),
        ctx.raw_request("GET", path),
    ]
    exchanges = ctx.send_many(judge, requests)
    statuses = [ex.response.status if ex.response else None for ex in exchanges]
    judge.note(f"statuses in order: {statuses}")
    judge.require("the batches' statuses", [statuses[0], statuses[2]], [[200, 200]], "MB-PIPE-1")
    after_put, after_delete = exchanges[1].response, exchanges[3].response
    assert after_put is not None
    assert after_delete is not None
    # MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received them";
    # spec 11: "a request pipelined behind a batch is processed after it and sees what it
    # wrote" (RFC 9112 §9.3.2: "in parallel if they all have safe methods").
    judge.expect(f"GET {path} behind the PUT batch: status", after_put.status, {200}, "MB-PIPE-1")
    if after_put.status == 200 and ctx.target.sandbox_reads_back:
        # MB-TEST-4: a sandbox declared reads_back "answers GET of a member with what was last
        # written".
        judge.expect_true(
            f"GET {path} behind the PUT batch: the document the batch wrote",
            marker in after_put.body,
            f"{after_put.body[:200]!r}",
            f"a document holding {marker.decode()}",
            "MB-PIPE-1",
        )
    judge.expect(
        f"GET {path} behind the DELETE batch: status", after_delete.status, GONE, "MB-PIPE-1"
    )
