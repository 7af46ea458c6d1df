"""Requests written while a batch runs are answered (spec 11, MB-PIPE-1, MB-PIPE-2).

Theory of operation: MB-PIPE-2 has a client wait before it pipelines behind a batch "until the
response to that batch has begun", so a well-behaved client writes its next request exactly
while the server is still running the batch's later parts. A server that looks at the
connection between parts (to see whether the client has gone, MB-LIMIT-6) with a read where a
peek was meant, or that reads ahead into a buffer it then drops, eats octets of that request:
it is answered 400 or 501, or never. The check writes a batch whose first part waits
`DELAY_MS` at the delay resource and whose later parts are quick, waits for the first octets of
its answer (or `DELAY_MS`, whichever comes first), writes a GET of `ok`, and `SECOND_S` later
another, while the batch still runs where the server streams. The batch must be answered whole,
with every part, and each GET 200 (MB-TEST-1), in order (MB-PIPE-1). An intermediary may
de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response, ResponseError, connect, read_response

__all__: list[str] = []

BOUNDARY = "mb-mid-batch-9e4c27a1"
#: How long the batch's first part waits: long enough for both GETs to arrive while it runs.
DELAY_MS = 800
#: Seconds between the two GETs written while the batch runs.
SECOND_S = 0.25
#: Quick parts after the slow one: the gaps between them are where a server looks at its client.
QUICK_PARTS = 3
#: Seconds each answer is waited for once everything is written.
ANSWER_S = 5.0


@checker(
    "pipelining-requests-written-while-batch-runs",
    ("MB-PIPE-1",),
    "GETs of ok written on a batch's connection once its answer has begun, while a part waiting at the delay resource and the quick parts after it still run, are each answered 200, after the batch's answer with every part.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def requests_written_while_batch_runs(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 carries each request on a stream of its own")
    delay = ctx.target.resource("delay")
    if not delay:
        judge.not_applicable("the target declares no delay resource to keep a batch running")
    ok = ctx.path(ctx.resource(judge, "ok"))
    slow = SubRequest("GET", ctx.path(delay.replace("{ms}", str(DELAY_MS))))
    subs = [slow, *(SubRequest("GET", f"{ok}?mb-mid={i}") for i in range(QUICK_PARTS))]
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch = ctx.raw_request("POST", ctx.batch_path, head, compose_batch(subs, BOUNDARY))
    get = ctx.raw_request("GET", ok)
    sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
    answers: list[Response | str] = []
    try:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(batch)
        # MB-PIPE-2: a client pipelines behind a batch once "the response to that batch has
        # begun": the first octets of it, or the slow part's time when it buffers its answer.
        begun, _, _ = select.select([sock], [], [], DELAY_MS / 1000)
        judge.note("the batch's answer had begun" if begun else "no octet of the answer yet")
        sock.sendall(get)
        time.sleep(SECOND_S)
        sock.sendall(get)
        sock.settimeout(ANSWER_S)
        reader = sock.makefile("rb")
        for method in ("POST", "GET", "GET"):
            try:
                answers.append(read_response(reader, method))
            except (ResponseError, OSError) as exc:
                answers.append(f"{type(exc).__name__}: {exc}")
                break
        reader.close()
    finally:
        sock.close()
    first = answers[0]
    if isinstance(first, str):
        judge.expect("the batch's answer", first, {"an answer"}, "MB-PIPE-1")
        return
    judge.require("the batch's status", first.status, {200}, "MB-PIPE-1")
    _, params = parse_media_type(first.get("Content-Type") or "")
    env = read_multipart(first.body, params.get("boundary", ""))
    judge.expect(
        "the batch's parts, whole", (len(env.parts), env.complete), {(len(subs), True)}, "MB-PIPE-1"
    )
    for i, got in enumerate(answers[1:3] + ["no answer"] * (3 - len(answers)), start=1):
        status = got.status if not isinstance(got, str) else got
        # MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received
        # them"; MB-TEST-1: a GET of ok is answered 200.
        judge.expect(f"GET {ok} written while the batch ran ({i} of 2)", status, {200}, "MB-PIPE-1")
