"""A request pipelined behind an HTTP/1.0 batch that asks to keep its connection (spec 11).

Theory of operation: an HTTP/1.0 client cannot read chunked content (RFC 9112 §6.1: a server
"MUST NOT send a response containing Transfer-Encoding unless the corresponding request
indicates HTTP/1.1"), so a server that streams a batch answer to one writes it without a length,
and such an answer ends only where the connection closes (RFC 9112 §6.3). `Connection:
keep-alive` on the request does not change that: a server that keeps the connection after an
answer without a length has written an answer whose end no client can find, and the answer to
the request pipelined behind it lands inside it. MB-PIPE-1 has a server answer pipelined
requests "in the order it received them", each its own answer, so the check sends a one-part
HTTP/1.0 batch with `Connection: keep-alive` and a plain HTTP/1.0 GET behind it on one
connection, and holds the batch answer to end, by its length or by the close, before anything
of the GET's answer. A server may close after the batch answer (HTTP/1.0 persistence is the
server's choice), leaving the GET to be sent again; a GET answered after it must be 200
(MB-TEST-1).

Nothing in the spec makes a server take an HTTP/1.0 batch: whether it answers one as a batch is
learnt first from the same batch alone, without keep-alive, and the check is N/A when it does
not. An intermediary
may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

import re

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import read_multipart

__all__: list[str] = []

BOUNDARY = "mb-pipe-10-4d1b7e"
KEEP_ALIVE = ("Connection", "keep-alive")
#: A status line of another answer, found inside the batch answer's content.
STATUS_LINE = re.compile(rb"HTTP/1\.[01] [1-5][0-9][0-9]")


@checker(
    "pipelining-behind-http10-keep-alive-batch",
    ("MB-PIPE-1",),
    "A plain GET pipelined behind an HTTP/1.0 batch that asks for keep-alive is answered after the batch answer ends, by its length or by the close of the connection, never inside it; a batch answer without a length ends with the connection.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_http10_keep_alive_batch(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    content = compose_batch([ok], BOUNDARY)
    batch = with_version(
        ctx.raw_request("POST", ctx.batch_path, [ctype, KEEP_ALIVE], content), "1.0"
    )
    follower = with_version(ctx.raw_request("GET", ok.target, [KEEP_ALIVE]), "1.0")
    # Learnt without keep-alive, so that the connection's close ends the answer whatever it is.
    alone = ctx.send(
        judge, with_version(ctx.raw_request("POST", ctx.batch_path, [ctype], content), "1.0")
    )
    if alone.status != 200 or alone.media_type != "multipart/mixed":
        judge.not_applicable(
            f"the server answers an HTTP/1.0 batch {alone.status} {alone.media_type!r}, not as "
            "a multipart batch"
        )
    first, second = ctx.send_many_within(judge, [batch, follower], ctx.timeout_for(judge))
    # MB-PIPE-1: pipelined requests are answered "in the order it received them", each with
    # an answer of its own; RFC 9112 §6.3: an answer without a length ends where the
    # connection closes, so a server that keeps it open leaves the batch answer without an end.
    judge.require_true(
        "the batch answer's end",
        first.response is not None,
        f"no end found: {first.error}",
        "the batch answer ends by its length or by the close of the connection",
        "MB-PIPE-1",
    )
    assert first.response is not None
    env = read_multipart(first.response.body, BOUNDARY)
    inside = STATUS_LINE.search(env.epilogue) if env.complete else None
    judge.expect_true(
        "what follows the batch answer's close delimiter",
        inside is None,
        f"another answer's status line inside it: {inside.group(0)!r}" if inside else "nothing",
        "no answer to the request pipelined behind inside the batch answer",
        "MB-PIPE-1",
    )
    if second.response is not None:
        # MB-TEST-1: ok answers GET with 200.
        judge.expect("status of the GET behind the batch", second.response.status, {200})
    else:
        judge.note(f"the GET behind the batch was not answered ({second.error}): sent again")
