"""Every part of a batch of distinct answers, in every form, as the same request alone.

Theory of operation: a server that builds its 207 forms after the whole batch has run keeps the
parts' results until the end, and a buffer shared or reused between them (a pooled body, a
recorder handed on to the next part) shows only there: the multipart form, written as each part
finishes, stays right. MB-MULTI-5 makes every representation carry "for each part, in order, its
status or outcome, its `Content-Id` echo, its header fields and its body", so each part of a
batch whose parts answer differently (the echo with a different query each time, random bodies
of different lengths, the declared ok, not_found and etag resources) is compared in each
declared form with the same request sent alone, as spec 3.2.4 says. In a 207 form a difference
is also one between representations, and is reported under MB-MULTI-5 as well.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import Answer, expect_same_as_alone
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: Echo requests of the batch, each with its own query so that each body differs.
ECHOES = 4
#: Lengths of the random bodies: each differs from the others and spans several reads.
RANDOM_LENGTHS = (1, 700, 20_000)


def _parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    ok, nf = ok_and_not_found(ctx, judge)
    subs: list[SubRequest] = []
    echo = ctx.target.resource("echo")
    random = ctx.target.resource("random")
    for i in range(ECHOES):
        if echo:
            subs.append(SubRequest("GET", f"{ctx.path(echo)}?part={i}"))
        if random and "{n}" in random and i < len(RANDOM_LENGTHS):
            subs.append(SubRequest("GET", ctx.path(random.replace("{n}", str(RANDOM_LENGTHS[i])))))
    subs += [ok, nf]
    etag_path = ctx.target.resource("etag_resource")
    if etag_path:
        subs.append(SubRequest("GET", ctx.path(etag_path)))
    return subs


@checker(
    "distinct-parts-as-alone-in-every-form",
    ("MB-MULTI-5", "MB-RESP-4", "MB-SUB-1"),
    "Each part of a batch whose parts answer differently (echo queries, random lengths, ok, not_found, etag) carries in every declared form the status, fields and body the same request gets alone.",
    state=State.READ_ONLY,
)
def distinct_parts_as_alone_in_every_form(ctx: Context, judge: Judge) -> None:
    subs = _parts(ctx, judge)
    alone: list[Answer] = []
    for sub in subs:
        resp = ctx.alone(judge, sub)
        alone.append((resp.status, resp.headers, resp.body))
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, (sub, entry) in enumerate(zip(subs, entries, strict=True)):
            label = f"{media} part {i} ({sub.method} {sub.target})"
            broken = len(judge.failed)
            expect_same_as_alone(
                ctx, judge, label, sub, (entry.status, entry.fields, entry.body), alone[i]
            )
            if media != "multipart/mixed":
                # MB-MULTI-5: "carry the same information in every representation of one batch
                # result: for each part, in order, its status or outcome, ... its header fields
                # and its body": a 207 entry unlike the request alone is unlike its part.
                judge.expect_true(
                    f"{label} is the part's result",
                    len(judge.failed) == broken,
                    "; ".join(e.what for e in judge.failed[broken:]) or "as alone",
                    "the status, fields and body the same request gets alone",
                    "MB-MULTI-5",
                )
