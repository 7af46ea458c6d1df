"""Parts whose method gives content no meaning still carry it (spec 3.2.3, 3.2.4, 8.1).

Theory of operation: MB-PART-8 takes "the part body as the sub-request's content", whatever the
method, and MB-SUB-1 subjects the sub-request to "the same routing, authentication,
authorisation, rate-limit, input-validation and audit checks as the same request sent on its
own". Content on a GET, HEAD, OPTIONS or DELETE has no defined semantics (RFC 9110 §9.3), which
tempts a server to drop it from the sub-request; the resource then answers a different request.
A collection retrieval with content, refused with 400 alone (MB-METHOD-3), is answered 200 in
the part, and the echo describes a request with no content.

The check sends GET, HEAD and OPTIONS parts with content to every declared read-only resource
(the collections, with and without `Accept: multipart/mixed`, `ok`, `not_found`,
`etag_resource`) and GET, HEAD, OPTIONS and DELETE parts with content to the echo, which
changes nothing. Each part must be answered as the same request alone (spec 3.2.4, learnt from
the same server); the echo's description must hold the part body as its content.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The content every part carries: short, text, and not a document any resource takes.
CONTENT = b"mb-suite-content-on-a-bodiless-method"
TEXT = ("Content-Type", "text/plain")
RETRIEVAL = ("Accept", "multipart/mixed")
#: Declared resources the check only reads, and whether to ask them for a retrieval.
READ_ROLES = (
    ("collection", True),
    ("collection", False),
    ("empty_collection", True),
    ("ok", False),
    ("not_found", False),
    ("etag_resource", False),
)
#: Methods sent with content to a resource that is only read (none of them writes).
READ_METHODS = ("GET", "HEAD", "OPTIONS")
#: Methods sent with content to the echo, which writes nothing whatever the method.
ECHO_METHODS = ("GET", "HEAD", "OPTIONS", "DELETE")


@checker(
    "parts-with-content-on-any-method-as-alone",
    ("MB-SUB-1", "MB-PART-8", "MB-RESP-4"),
    "GET, HEAD, OPTIONS and DELETE parts with content (to the collections with and without Accept: multipart/mixed, ok, not_found, etag_resource, the echo) are answered as the same requests alone, and the echo receives the content.",
    state=State.READ_ONLY,
)
def parts_with_content_as_alone(ctx: Context, judge: Judge) -> None:
    subs: list[SubRequest] = []
    for role, retrieval in READ_ROLES:
        path = ctx.target.resource(role)
        if not path:
            continue
        fields = (TEXT, RETRIEVAL) if retrieval else (TEXT,)
        subs += [SubRequest(m, ctx.path(path), fields, CONTENT) for m in READ_METHODS]
    echo = ctx.target.resource("echo")
    if echo:
        subs += [SubRequest(m, ctx.path(echo), (TEXT,), CONTENT) for m in ECHO_METHODS]
    if not subs:
        judge.not_applicable("the target declares no resource to send such parts to")
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, (sub, part, single) in enumerate(zip(subs, env.parts, alone, strict=True)):
        label = f"part {i} ({sub.method} {sub.target} with content, {dict(sub.headers)})"
        # MB-SUB-1: "the same routing, authentication, authorisation, rate-limit,
        # input-validation and audit checks as the same request sent on its own": the part's
        # content is part of that request (spec 3.2.4: "their contents are equal").
        expect_same_as_alone(
            ctx,
            judge,
            label,
            sub,
            (part_status(env, i), part.fields, part.body),
            (single.status, single.headers, single.body),
        )
        if sub.method == "HEAD" or not echo or sub.target != ctx.path(echo):
            continue
        seen = read_echo(part.body)
        if seen is None:
            judge.note(f"{label}: the echo's description is unreadable")
            continue
        # MB-PART-8: "take ... the part body as the sub-request's content"; whatever the
        # method, the resource must receive it, as alone.
        judge.expect(f"{label}, content received", seen.body, {CONTENT}, "MB-SUB-1")
