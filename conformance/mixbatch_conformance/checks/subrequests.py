"""Sub-request checks (spec 8.1, 8.2): a part behaves as the same request sent alone.

Theory of operation: each part's status, fields (less the target's volatile ones) and body
equal those of the same request sent alone (MB-SUB-1, MB-RESP-4), and a conditional field
on the batch request is not applied to its parts (MB-SUB-6). Credential inheritance has its
own module (credentials).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import etag_of, ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    comparable_fields,
)


@checker(
    "batch-equals-alone",
    ("MB-SUB-1", "MB-RESP-4", "MB-PART-8"),
    "Each part's status, fields and body equal those of the same request sent alone.",
    state=State.READ_ONLY,
)
def batch_equals_alone(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [ok, nf]
    echo = ctx.target.resource("echo")
    if echo:
        binary = bytes(range(256)) + b"\r\n--not-a-boundary\r\n"
        subs += [
            SubRequest("PUT", ctx.path(echo), (("Content-Type", "text/plain"),), b"put body"),
            SubRequest(
                "POST", ctx.path(echo), (("Content-Type", "application/octet-stream"),), binary
            ),
            SubRequest("DELETE", ctx.path(echo)),
        ]
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, (part, single) in enumerate(zip(env.parts, alone, strict=True)):
        judge.expect(f"part {i} status", part_status(env, i), {single.status}, "MB-SUB-1")
        judge.expect(
            f"part {i} fields",
            comparable_fields(part.fields, ctx.target.volatile_headers),
            {comparable_fields(single.headers, ctx.target.volatile_headers)},
            "MB-RESP-4",
        )
        judge.expect(f"part {i} body", part.body, {single.body}, "MB-RESP-4")


@checker(
    "outer-fields-not-inherited",
    ("MB-SUB-6",),
    "A conditional field on the batch request is not applied to its parts.",
    state=State.READ_ONLY,
)
def outer_fields(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    sub = SubRequest("GET", path)
    resp = ctx.batch(judge, [sub], headers=(("If-None-Match", etag),))
    env = expect_processed(ctx, judge, resp, [sub.content_id])
    judge.expect("part 0 status", part_status(env, 0), {200}, "MB-SUB-6")
