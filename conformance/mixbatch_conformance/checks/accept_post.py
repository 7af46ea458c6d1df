"""Accept-Post on the 415 for every kind of content that is not a batch, and on OPTIONS.

Theory of operation: MB-WIRE-2 answers a batch request "whose media type is not
`multipart/mixed`" with 415 and "an `Accept-Post: multipart/mixed` field", and MB-LIMIT-2 puts
the same field on the answer to OPTIONS. The field names the one type the endpoint accepts;
a server that lists the forms it answers in (the 207 forms, problem documents) confuses what
it sends with what it takes. `non-batch-media-types-name-multipart-only` sends a valid
envelope under each media type a client could mistake for a batch, the target's own response
forms among them, and under no Content-Type at all: each is a 415 whose Accept-Post has
multipart/mixed as its only member. A batch without Content-Type may be answered 400 instead, for
its missing boundary (spec 3.1.1); its Accept-Post is judged when it is a 415. `options-accept-post-names-multipart-only` judges the
field on OPTIONS the same way.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.accept_post import expect_accept_post_exact
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-accept-post-5d81c2e9a0f4b736"
#: Media types that are not multipart/mixed (None sends no Content-Type): the batch's response
#: forms and problem documents, the types near multipart/mixed, and the usual POST bodies.
NOT_BATCH_TYPES: tuple[str | None, ...] = (
    None,
    "application/vnd.mixbatch.multistatus+json",
    "application/xml",
    "application/problem+json",
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/octet-stream",
    f"multipart/form-data; boundary={BOUNDARY}",
    f"multipart/related; boundary={BOUNDARY}",
    f"multipart/alternative; boundary={BOUNDARY}",
    f"multipart/mixedx; boundary={BOUNDARY}",
    f"message/http; boundary={BOUNDARY}",
)


@checker(
    "non-batch-media-types-name-multipart-only",
    ("MB-WIRE-2",),
    "A batch sent under each media type that is not multipart/mixed, or none, is answered 415 with an Accept-Post naming multipart/mixed and no other media type; one without Content-Type may be answered 400 instead.",
    state=State.READ_ONLY,
)
def non_batch_media_types(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    body = (
        f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--"
    ).encode()
    for media in NOT_BATCH_TYPES:
        head = [] if media is None else [("Content-Type", media)]
        judge.note(f"sent Content-Type {media!r}")
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        # MB-WIRE-2: "answer a batch request whose media type is not `multipart/mixed` with 415
        # (Unsupported Media Type) and an `Accept-Post: multipart/mixed` field"; spec 3.1.1: one
        # without a `Content-Type` field "also has no boundary, so MB-STATUS-13 lets a server
        # answer 400 under MB-WIRE-4 instead".
        expect_rejected(judge, resp, {415} if head else {415, 400}, "MB-WIRE-2")
        if resp.status == 415:
            expect_accept_post_exact(judge, resp, "MB-WIRE-2")


@checker(
    "options-accept-post-names-multipart-only",
    ("MB-LIMIT-2",),
    "OPTIONS on the batch endpoint carries an Accept-Post naming multipart/mixed and no other media type.",
    profile="limits",
    state=State.READ_ONLY,
)
def options_accept_post(ctx: Context, judge: Judge) -> None:
    resp = ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path))
    # MB-LIMIT-2: "answer `OPTIONS` on a batch endpoint with 200, ... an
    # `Accept-Post: multipart/mixed` field".
    judge.require("status", resp.status, {200}, "MB-LIMIT-2")
    expect_accept_post_exact(judge, resp, "MB-LIMIT-2")
