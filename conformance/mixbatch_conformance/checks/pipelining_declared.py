"""A connection a server ends after refusing a batch by its declared length says so (spec 11,
MB-PIPE-1).

Theory of operation: spec 11 lets a server answer "before it has read the request's content
whole: a 413 or 431 by a declared length", and then "close the connection after that answer,
marked `Connection: close`", so that "a client sends the requests it had pipelined behind again
on a new connection". A client told nothing cannot know that the requests behind were lost.
The check writes, in one write, the head of a batch whose `Content-Length` declares one octet
over the published `max_batch_bytes`, the first kilobyte of its content (preamble text) and a
GET of `ok` behind it, which the declared length makes content too. A server that reads on
before it refuses answers nothing within `WAIT_S`: the check is N/A. One that refuses at once
either keeps the connection, reading the content it declared (the GET gets no answer of its
own), or ends it: then its refusal must carry `Connection: close`. The status itself is
`limit-batch-bytes-declared-past-32-bits`'s to judge. An intermediary may wait for the whole
declared content before it forwards anything, so the check runs direct only.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    PREAMBLE_CONTENT,
    published_limit,
)
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Seconds the refusal, and then any answer behind it, is waited for.
WAIT_S = 2.0


@checker(
    "pipelining-behind-declared-length-refusal",
    ("MB-PIPE-1",),
    "A batch declaring one octet over max_batch_bytes, sent with its first kilobyte and a GET pipelined behind, is either read on or refused at once; a connection the server ends after that refusal was marked Connection: close.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary may wait for the whole declared content before it forwards "
    "the request",
)
def pipelining_behind_declared_length_refusal(ctx: Context, judge: Judge) -> None:
    limit = published_limit(ctx, judge, "max_batch_bytes")
    ok = ctx.path(ctx.resource(judge, "ok"))
    head = [
        ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
        ("Content-Length", str(limit + 1)),
    ]
    batch = ctx.raw_request("POST", ctx.batch_path, head, b"") + PREAMBLE_CONTENT
    refusal, behind = ctx.send_many_within(judge, [batch, ctx.raw_request("GET", ok)], WAIT_S)
    if refusal.response is None:
        judge.not_applicable(
            f"no answer within {WAIT_S:g} s to the head and {len(PREAMBLE_CONTENT)} octets: the "
            f"server reads the declared content before it answers ({refusal.error})"
        )
    status = refusal.response.status
    judge.note(f"the batch declaring {limit + 1} octets was answered {status} at once")
    ended = behind.unanswered
    # Spec 11 (MB-PIPE-1): a server may "close the connection after that answer, marked
    # `Connection: close`"; one that keeps it reads the declared content on.
    judge.expect_true(
        f"the connection after the {status} to a batch declaring {limit + 1} octets",
        not ended or not refusal.response.persistent,
        "ended without Connection: close"
        if ended and refusal.response.persistent
        else ("ended, marked Connection: close" if ended else "kept"),
        "kept, or ended after an answer marked Connection: close",
        "MB-PIPE-1",
    )
