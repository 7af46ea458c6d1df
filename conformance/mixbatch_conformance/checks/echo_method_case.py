"""The echo's method reported in the case it was sent, alone and in a part (spec 14.4, 3.2.1).

Theory of operation: MB-TEST-2 makes the echo report "`method`, the request method", and the
method token is case-sensitive (RFC 9110 §9.1), so `get` is another method than `GET`, not a
spelling of it. An echo, or a stack in front of it, that upper-cases the method reports `GET`
for `get`; a check comparing a part's echo with the same request's alone cannot see it, since
both are rewritten alike. Whether the server answers such a method at the echo at all is learnt
from the same server: each is sent alone, and only one answered 200 with an echo description is
judged, its method exactly as sent (MB-TEST-2). The same methods then go as parts of one batch
(`Http-Method: get`, MB-PART-2 gives the part's method as written): each part the echo answers
reports the method octet for octet. It writes nothing (the methods are GET and POST in other
cases, with no content, sent to the echo, which changes nothing).
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Methods in another case than their registered spelling: each is a method of its own.
METHODS = ("get", "Get", "gET", "post")


@checker(
    "echo-method-case-as-received",
    ("MB-TEST-2", "MB-SUB-1"),
    "A request to the echo whose method is get, Get, gET or post is reported with that method octet for octet whenever the server answers it there alone, and so is each such part of a batch.",
    state=State.READ_ONLY,
    tier="standard",
)
def echo_method_case_as_received(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [SubRequest(m, f"{echo}?mb-method={m}") for m in METHODS]
    answered: list[SubRequest] = []
    for sub in subs:
        resp = ctx.alone(judge, sub)
        seen = read_echo(resp.body) if resp.status == 200 else None
        if seen is None:
            judge.note(f"{sub.method} alone: {resp.status}, no echo description")
            continue
        answered.append(sub)
        # MB-TEST-2: "`method`, the request method"; RFC 9110 §9.1: "The method token is
        # case-sensitive".
        judge.expect(f"{sub.method} alone: the echo's method", seen.method, {sub.method})
    if not answered:
        judge.not_applicable("the echo answers no method in another case alone")
    resp = ctx.batch(judge, answered)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in answered])
    for i, sub in enumerate(answered):
        label = f"part {i} ({sub.method} {sub.target})"
        # MB-TEST-2: the echo answers "every request to that resource whose method a
        # sub-request may carry, other than `HEAD`, with 200"; this one it answered alone, and
        # MB-SUB-1: a server "MUST subject each sub-request to the same routing, ...
        # input-validation and audit checks as the same request sent on its own", so a part
        # refused where the request alone was answered was kept from the resource by the batch.
        if not judge.expect(f"{label} status", part_status(env, i), {200}, "MB-SUB-1"):
            continue
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.expect_true(label, False, repr(env.parts[i].body[:120]), "an echo description")
            continue
        judge.expect(f"{label}: the echo's method", seen.method, {sub.method})
